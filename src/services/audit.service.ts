// The audit trail as team admins read it (GET /v2/audit), and its retention (AUDIT_RETENTION_DAYS).
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { validation } from '../errors.ts';
import * as audit from '../repositories/audit.repository.ts';
import type { AuditEntry, AuditFilters } from '../repositories/audit.repository.ts';

/** What the list shows of a row: the team is the caller's own. */
export type AuditItem = Omit<AuditEntry, 'teamId'>;

export interface AuditListRequest extends AuditFilters {
  afterCursor?: number;
  limit: number;
  count?: boolean;
}

/** Times are compared as text: both ends are written the way the rows are (toISOString). */
function asStoredTime(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw validation(`${name} is not a date and time`, { in: 'querystring', pointer: `/${name}` });
  return time.toISOString();
}

export async function listAudit(db: Kysely<Database>, teamId: number, request: AuditListRequest): Promise<{ items: AuditItem[]; nextId: number | null; total?: number }> {
  const filters: AuditFilters = {
    since: asStoredTime(request.since, 'since'),
    until: asStoredTime(request.until, 'until'),
    keyId: request.keyId,
    method: request.method,
    status: request.status,
  };
  const rows = await audit.listEvents(db, teamId, { ...filters, beforeId: request.afterCursor, limit: request.limit + 1 });
  const items = rows.slice(0, request.limit).map(({ teamId: _team, ...item }) => item);
  const nextId = rows.length > request.limit ? items.at(-1)!.id : null;
  return { items, nextId, ...(request.count ? { total: await audit.countEvents(db, teamId, filters) } : {}) };
}

const BATCH = 5000;

/** Removes the rows older than the retention period, a batch at a time; answers how many. */
export async function expireAuditEvents(ctx: Context, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ctx.config.operations.auditRetentionMs).toISOString();
  let removed = 0;
  for (;;) {
    const deleted = await audit.deleteOlderThan(ctx.db.kysely, cutoff, BATCH);
    removed += deleted;
    if (deleted < BATCH) return removed;
  }
}
