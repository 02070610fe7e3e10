// Tells cheaply whether a PostgreSQL database may have changed since an earlier moment, so answers
// read from it can be kept until it does, as SqliteChangeStamp does for SQLite.
import { randomBytes } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { CHANGES_CHANNEL } from './migrations/0006_change_notifications.ts';

/** How long to wait before listening again after the listening connection was lost. */
const RELISTEN_DELAY_MS = 1000;
/**
 * How often the listener notifies itself, and how long that may take to come back before the
 * connection counts as lost. A connection can die without a word (a half-open TCP connection, a
 * failover, a pooler in transaction mode that never delivers): this bounds how long that goes unseen.
 */
const HEARTBEAT_EVERY_MS = 10_000;
const HEARTBEAT_TIMEOUT_MS = 3_000;

/** The application_name of a listening connection (PostgreSQL keeps 63 bytes of it). */
export const listenerName = (schema: string): string => `annostore changes ${schema}`.slice(0, 63);

/** Statements that change nothing even when they succeed. */
const CHANGES_NOTHING = new Set(['SELECT', 'BEGIN', 'SHOW', 'SET']);
const ROW_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** What node-postgres tells of a completed statement; undefined for one that failed. */
type StatementOutcome = { command?: string; rowCount?: number | null } | undefined;

/** Whether a completed statement may have changed the database (a failed one counts: it may have). */
export function mayHaveChanged(result: StatementOutcome): boolean {
  const command = result?.command;
  if (command === undefined) return true;
  if (CHANGES_NOTHING.has(command)) return false;
  return !(ROW_COMMANDS.has(command) && result?.rowCount === 0);
}

/**
 * A number that goes up whenever the database may have changed:
 * - at once when a statement of this process that changed something completes (`statementDone`), so
 *   a request that follows a write of this process never finds an answer kept from before it;
 * - when a notification of a commit that changed rows arrives on a dedicated LISTEN connection (the
 *   triggers of migration 0006 send one per transaction and schema). That takes as long as the
 *   notification takes to arrive: well under a millisecond on one machine.
 *
 * There is no stamp until the connection listens, nor once it is found lost; a connection that dies
 * silently is found lost by its heartbeat within HEARTBEAT_EVERY_MS + HEARTBEAT_TIMEOUT_MS.
 */
export class PostgresChangeStamp {
  private stamp = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  /** The payload of the heartbeat on its way, if one is. */
  private awaited: string | null = null;

  constructor(private readonly connection: pg.ClientConfig) {}

  /**
   * The stamp, or undefined while the process does not hear other processes' changes. The first call
   * starts listening (a process that never asks, such as a CLI command, never opens the connection).
   */
  current(): number | undefined {
    if (!this.listener && !this.retry && !this.closed) void this.listen();
    return this.listening ? this.stamp : undefined;
  }

  /** Called as each statement of this process completes, before whoever ran it sees the result. */
  statementDone(result: StatementOutcome): void {
    if (mayHaveChanged(result)) this.stamp++;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ ...this.connection, keepAlive: true });
    this.listener = client;
    let schema: string | null = null;
    client.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      if (message.payload === this.awaited) this.awaited = null;
      else if (message.payload === schema) this.stamp++;
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      // The triggers name the schema of the table that changed: the one our tables are found in.
      schema = (await client.query<{ schema: string }>('select current_schema() as schema')).rows[0]!.schema;
      // Named in pg_stat_activity as what it is, for whoever looks at the server's connections.
      await client.query(`select set_config('application_name', $1, false)`, [listenerName(schema)]);
      await client.query(`listen ${CHANGES_CHANNEL}`);
      if (this.listener !== client) return;
      // Anything may have changed while nobody listened.
      this.stamp++;
      this.listening = true;
      this.heartbeat = setInterval(() => this.beat(client, schema!), HEARTBEAT_EVERY_MS);
      this.heartbeat.unref();
    } catch {
      this.lost(client);
    }
  }

  /** Notifies this connection itself; if that does not come back in time, the connection is lost. */
  private beat(client: pg.Client, schema: string): void {
    const token = `${schema} heartbeat ${randomBytes(6).toString('hex')}`;
    this.awaited = token;
    client.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, token]).catch(() => this.lost(client));
    setTimeout(() => {
      if (this.awaited === token) this.lost(client);
    }, HEARTBEAT_TIMEOUT_MS).unref();
  }

  private lost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listening = false;
    this.listener = null;
    this.awaited = null;
    this.stamp++;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    client.end().catch(() => undefined);
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.listen();
    }, RELISTEN_DELAY_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.retry) clearTimeout(this.retry);
    if (this.heartbeat) clearInterval(this.heartbeat);
    const client = this.listener;
    this.listener = null;
    await client?.end().catch(() => undefined);
  }
}

/**
 * The pool as Kysely sees it, with every statement's outcome reported to `stamp` as it completes,
 * before the code that awaits it goes on.
 */
export function reportingStatements(pool: pg.Pool, stamp: PostgresChangeStamp): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    function query(statementOrCursor: string | pg.Submittable, parameters?: readonly unknown[]) {
      // Kysely streams through cursors only on request, and none of ours writes.
      if (typeof statementOrCursor !== 'string') return client.query(statementOrCursor);
      return client.query(statementOrCursor, parameters as unknown[]).then(
        (result) => {
          stamp.statementDone(result);
          return result;
        },
        (error: unknown) => {
          stamp.statementDone(undefined);
          throw error;
        },
      );
    }
    return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let kyselyClient = wrapped.get(client);
      if (!kyselyClient) wrapped.set(client, (kyselyClient = wrap(client)));
      return kyselyClient;
    },
    end: () => pool.end(),
  };
}
