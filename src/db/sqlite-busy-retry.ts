// SQLite answers SQLITE_BUSY at once, without waiting out its busy_timeout, in some of the moments the
// checkpoint thread restarts the log (sqlite-checkpoints.ts): a large import's transaction failed with
// "database is locked" at its BEGIN IMMEDIATE, and a webhook's claim at its UPDATE, a few times an
// import, each a moment after the last. A statement run outside a transaction that fails so has
// changed nothing (BEGIN included), so it is run again after a pause, which the event loop waits out.
// Not tried again: a statement inside a transaction (the caller's transaction fails as before), a try
// that SQLite made wait (it waited out busy_timeout, during which better-sqlite3 blocks the thread: a
// lock held that long by another process is not a moment's), and streams.
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';

/** How long a statement is tried again. */
export const BUSY_RETRY_MS = 30_000;
/** A try refused sooner than this was refused at once, not after SQLite's own wait. */
export const REFUSED_AT_ONCE_MS = 1000;
/** The first pause, doubled after each try up to the last. */
const FIRST_PAUSE_MS = 20;
const LAST_PAUSE_MS = 500;

const isBusy = (error: unknown) => error instanceof SQLite.SqliteError && error.code.startsWith('SQLITE_BUSY');

/** The connection, with what it runs outside a transaction tried again while SQLite refuses it at once as busy. */
export class RetryingWhenBusy implements DatabaseConnection {
  readonly #connection: DatabaseConnection;
  readonly #inTransaction: () => boolean;

  constructor(connection: DatabaseConnection, inTransaction: () => boolean) {
    this.#connection = connection;
    this.#inTransaction = inTransaction;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Asked before the statement runs: a busy statement may roll back the transaction it was in.
    if (this.#inTransaction()) return this.#connection.executeQuery<R>(query);
    const deadline = Date.now() + BUSY_RETRY_MS;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LAST_PAUSE_MS)) {
      const tried = Date.now();
      try {
        return await this.#connection.executeQuery<R>(query);
      } catch (error) {
        const atOnce = Date.now() - tried < REFUSED_AT_ONCE_MS;
        if (!isBusy(error) || !atOnce || Date.now() + pause > deadline) throw error;
        await sleep(pause);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#connection.streamQuery<R>(query, chunkSize);
  }
}
