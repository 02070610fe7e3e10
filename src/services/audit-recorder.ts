// Writes the audit trail's rows after the answers they record, so that no write request waits for
// its own audit row. Rows that arrive together (in one turn of the event loop) go in one insert. A
// failed insert is logged and its rows are lost: the audit trail never fails a request.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/create-db.ts';
import * as audit from '../repositories/audit.repository.ts';
import type { AuditEvent } from '../repositories/audit.repository.ts';

/** Rows waiting for their insert, at most; past this (a database that stopped answering) rows are dropped. */
const MAX_WAITING = 10_000;

export class AuditRecorder {
  #waiting: AuditEvent[] = [];
  #writing: Promise<void> = Promise.resolve();
  #scheduled = false;
  #dropped = 0;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  record(event: AuditEvent): void {
    if (this.#waiting.length >= MAX_WAITING) {
      // Told once per run of drops, not once per row.
      if (this.#dropped++ === 0) this.log.error({ waiting: this.#waiting.length }, 'audit rows are not being written; dropping new ones');
      return;
    }
    this.#waiting.push(event);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      // One insert at a time, in order.
      this.#writing = this.#writing.then(() => this.#write());
    });
  }

  /** Resolves once every row recorded so far has been written (or its failure logged). */
  async settled(): Promise<void> {
    while (this.#scheduled || this.#waiting.length > 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.#writing;
    }
    await this.#writing;
  }

  async #write(): Promise<void> {
    const rows = this.#waiting;
    if (rows.length === 0) return;
    this.#waiting = [];
    try {
      await audit.insertEvents(this.db.kysely, rows);
      if (this.#dropped > 0) {
        this.log.warn({ dropped: this.#dropped }, 'audit rows are written again; some were dropped');
        this.#dropped = 0;
      }
    } catch (error) {
      this.log.error({ err: error, rows: rows.length }, 'audit rows could not be written');
    }
  }
}
