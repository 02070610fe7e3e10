// The audit trail's rows (see migration 0015_audit): written in batches after the answers they
// record, read by a team's admins newest first, removed once past their retention.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export interface AuditEvent {
  at: string;
  teamId: number;
  userId: number;
  keyId: number;
  keyPrefix: string;
  method: string;
  route: string;
  params: Record<string, unknown> | null;
  status: number;
  requestId: string;
  durationMs: number;
}

export interface AuditEntry extends AuditEvent {
  id: number;
}

export interface AuditFilters {
  /** Only rows at or after this time (ISO 8601 UTC). */
  since?: string;
  /** Only rows before this time. */
  until?: string;
  keyId?: number;
  method?: string;
  status?: number;
}

export interface AuditPageQuery extends AuditFilters {
  /** Only rows with a smaller id: the last id of the page before (pages go newest first). */
  beforeId?: number;
  limit: number;
}

/** Rows of one insert: PostgreSQL takes at most 65,535 parameters a statement (12 a row here). */
const ROWS_PER_INSERT = 1000;

export async function insertEvents(db: Kysely<Database>, events: readonly AuditEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += ROWS_PER_INSERT) {
    await db
      .insertInto('audit')
      .values(
        events.slice(i, i + ROWS_PER_INSERT).map((e) => ({
          at: e.at,
          team_id: e.teamId,
          user_id: e.userId,
          key_id: e.keyId,
          key_prefix: e.keyPrefix,
          method: e.method,
          route: e.route,
          params: e.params === null ? null : JSON.stringify(e.params),
          status: e.status,
          request_id: e.requestId,
          duration_ms: e.durationMs,
        })),
      )
      .execute();
  }
}

function teamEvents(db: Kysely<Database>, teamId: number, filters: AuditFilters) {
  let select = db.selectFrom('audit').where('team_id', '=', teamId);
  if (filters.since !== undefined) select = select.where('at', '>=', filters.since);
  if (filters.until !== undefined) select = select.where('at', '<', filters.until);
  if (filters.keyId !== undefined) select = select.where('key_id', '=', filters.keyId);
  if (filters.method !== undefined) select = select.where('method', '=', filters.method);
  if (filters.status !== undefined) select = select.where('status', '=', filters.status);
  return select;
}

/** The team's rows, newest first, a page at a time by keyset on the id. */
export async function listEvents(db: Kysely<Database>, teamId: number, query: AuditPageQuery): Promise<AuditEntry[]> {
  let select = teamEvents(db, teamId, query).selectAll();
  if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    teamId: r.team_id,
    userId: r.user_id,
    keyId: r.key_id,
    keyPrefix: r.key_prefix,
    method: r.method,
    route: r.route,
    params: r.params === null ? null : (JSON.parse(r.params) as Record<string, unknown>),
    status: r.status,
    requestId: r.request_id,
    durationMs: r.duration_ms,
  }));
}

export async function countEvents(db: Kysely<Database>, teamId: number, filters: AuditFilters): Promise<number> {
  const row = await teamEvents(db, teamId, filters)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Removes up to `limit` of the rows older than `cutoff`, oldest first; answers how many. */
export async function deleteOlderThan(db: Kysely<Database>, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('audit')
    .where('id', 'in', (eb) => eb.selectFrom('audit').select('id').where('at', '<', cutoff).orderBy('at').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
