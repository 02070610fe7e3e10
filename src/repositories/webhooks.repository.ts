// A team's webhooks and the outbox of their deliveries. Deliveries are claimed like tasks: a due row is
// taken with a lease (PostgreSQL skips rows other workers hold and holds the webhook's row while it
// takes one; SQLite's write lock makes the one statement exclusive), and every later write is
// conditional on still holding it.
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Database, WebhookDeliveryRow, WebhookRow } from '../db/types.ts';

export interface Webhook {
  id: number;
  url: string;
  events: string[];
  description: string;
  /** The id of the API key that made it; null once that key's user is gone. */
  createdBy: number | null;
  createdAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

const parseEvents = (text: string): string[] => {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((e): e is string => typeof e === 'string') : [];
};

const toWebhook = (row: Omit<WebhookRow, 'secret' | 'team_id'>): Webhook => ({
  id: row.id,
  url: row.url,
  events: parseEvents(row.events),
  description: row.description,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

const PUBLIC_COLUMNS = ['id', 'url', 'events', 'description', 'created_by', 'created_at'] as const;

export async function insertWebhook(db: Kysely<Database>, hook: { teamId: number; url: string; events: string[]; secret: string; description: string; createdBy: number }): Promise<number> {
  const row = await db
    .insertInto('webhooks')
    .values({ team_id: hook.teamId, url: hook.url, events: JSON.stringify(hook.events), secret: hook.secret, description: hook.description, created_by: hook.createdBy, created_at: isoNow() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function countWebhooks(db: Kysely<Database>, teamId: number): Promise<number> {
  const row = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number | string>().as('n')).where('team_id', '=', teamId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The team's webhooks in id order, after `afterId`; never their secrets. */
export async function listWebhooks(db: Kysely<Database>, teamId: number, page: { afterId?: number; limit: number }): Promise<Webhook[]> {
  let query = db.selectFrom('webhooks').select(PUBLIC_COLUMNS).where('team_id', '=', teamId);
  if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
  return (await query.orderBy('id').limit(page.limit).execute()).map(toWebhook);
}

/** The team's webhook, or undefined when it is missing or another team's. `lock`: held until the transaction ends. */
export async function findWebhook(db: Kysely<Database>, teamId: number, id: number, options: { lock?: boolean } = {}): Promise<Webhook | undefined> {
  let query = db.selectFrom('webhooks').select(PUBLIC_COLUMNS).where('team_id', '=', teamId).where('id', '=', id);
  if (options.lock && isPostgres(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toWebhook(row);
}

/** Removes the team's webhook and, by cascade, its deliveries; answers whether there was one. */
export async function deleteWebhook(db: Kysely<Database>, teamId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('id', '=', id).where('team_id', '=', teamId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The ids of the team's webhooks that want events of `type`. */
export async function subscribersOf(db: Kysely<Database>, teamId: number, type: string): Promise<number[]> {
  // A team has a handful of webhooks (a limit keeps it so): their event lists are read and matched here.
  const rows = await db.selectFrom('webhooks').select(['id', 'events']).where('team_id', '=', teamId).execute();
  return rows.filter((row) => parseEvents(row.events).includes(type)).map((row) => row.id);
}

export async function insertDeliveries(db: Kysely<Database>, rows: { webhookId: number; eventType: string; messageId: string; payload: string; createdAt: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      rows.map((r) => ({
        webhook_id: r.webhookId,
        event_type: r.eventType,
        message_id: r.messageId,
        payload: r.payload,
        created_at: r.createdAt,
        status: 'pending',
        attempts: 0,
        next_attempt_at: r.createdAt,
      })),
    )
    .execute();
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  messageId: string;
  payload: string;
  createdAt: string;
  /** This attempt's number, from 1. */
  attempt: number;
  url: string;
  secret: string;
}

const later = (now: string, ms: number): string => new Date(Date.parse(now) + ms).toISOString();

/**
 * Takes the delivery due longest, exclusively across processes: a pending one whose next attempt is
 * due and that no live lease holds (a worker that died mid-attempt loses it when its lease runs out),
 * of a webhook none of whose deliveries is under way or waiting for a retry. One delivery per webhook
 * at a time: a receiver that never answers holds one worker's slot, not all of them; and a webhook
 * whose last attempt failed gets nothing, new events included, before that attempt's retry time.
 */
export async function claimDelivery(db: Kysely<Database>, options: { owner: string; leaseMs: number; now?: string }): Promise<ClaimedDelivery | undefined> {
  const now = options.now ?? isoNow();
  const lease = {
    lease_owner: options.owner,
    lease_expires_at: later(now, options.leaseMs),
    attempts: sql<number>`attempts + 1`,
  };
  const returned = ['id', 'webhook_id', 'message_id', 'payload', 'created_at', 'attempts'] as const;
  let row;
  if (isPostgres(db)) {
    // Two workers may pick deliveries of one webhook at once, each not yet seeing the other's lease:
    // the webhook's row, held while the lease is taken, makes the second wait and look again. No key
    // update: recording an event (which inserts a delivery referring to the row) is not held up.
    row = await db.transaction().execute(async (trx) => {
      const candidate = await dueDeliveries(trx, now).select(['id', 'webhook_id']).forUpdate().skipLocked().executeTakeFirst();
      if (!candidate) return undefined;
      await trx.selectFrom('webhooks').select('id').where('id', '=', candidate.webhook_id).forNoKeyUpdate().execute();
      // A statement of its own: it sees what the worker that held the row committed.
      if (await webhookBusy(trx, candidate.webhook_id, now)) return undefined;
      return trx.updateTable('webhook_deliveries').set(lease).where('id', '=', candidate.id).returning(returned).executeTakeFirst();
    });
  } else {
    // SQLite's write lock makes the one statement exclusive.
    row = await db
      .updateTable('webhook_deliveries')
      .set(lease)
      .where('id', '=', dueDeliveries(db, now).select('id'))
      .returning(returned)
      .executeTakeFirst();
  }
  if (!row) return undefined;
  const hook = await db.selectFrom('webhooks').select(['url', 'secret']).where('id', '=', row.webhook_id).executeTakeFirst();
  // Removed between the claim and now: its deliveries went with it.
  if (!hook) return undefined;
  return { id: row.id, webhookId: row.webhook_id, messageId: row.message_id, payload: row.payload, createdAt: row.created_at, attempt: row.attempts, url: hook.url, secret: hook.secret };
}

/** Pending deliveries of a webhook that is under way or resting after a failed attempt. */
const busyOf = (db: Kysely<Database>, now: string) =>
  db
    .selectFrom('webhook_deliveries as held')
    .select('held.id')
    .where('held.status', '=', 'pending')
    // Under way, or failed and waiting for its retry: the webhook rests until then.
    .where((h) => h.or([h('held.lease_expires_at', '>=', now), h.and([h('held.attempts', '>', 0), h('held.next_attempt_at', '>', now)])]));

async function webhookBusy(db: Kysely<Database>, webhookId: number, now: string): Promise<boolean> {
  return (await busyOf(db, now).where('held.webhook_id', '=', webhookId).limit(1).executeTakeFirst()) !== undefined;
}

/**
 * The delivery due longest that may be taken now: the first of them, by due time and id. A webhook's
 * deliveries go out in the order of their events: one waits while an older one of its webhook is
 * pending (a failed attempt's retry included), so an event that came while the receiver was down
 * never overtakes the one being retried.
 */
const dueDeliveries = (db: Kysely<Database>, now: string) =>
  db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<', now)]))
    .where((w) => w.not(w.exists(busyOf(db, now).where('held.webhook_id', '=', sql.ref<number>('webhook_deliveries.webhook_id')))))
    .where((w) =>
      w.not(
        w.exists(
          db
            .selectFrom('webhook_deliveries as older')
            .select('older.id')
            .where('older.webhook_id', '=', sql.ref<number>('webhook_deliveries.webhook_id'))
            .where('older.status', '=', 'pending')
            .where('older.id', '<', sql.ref<number>('webhook_deliveries.id')),
        ),
      ),
    )
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(1);

export interface AttemptRecord {
  id: number;
  owner: string;
  /** delivered, failed, or pending again (with nextAttemptAt). */
  status: DeliveryStatus;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number | null;
  /** Hand the attempt back uncounted (the worker stopped during it). */
  uncount?: boolean;
}

/** Records how an attempt ended and lets the lease go, if `owner` still holds it; answers whether it did. */
export async function recordAttempt(db: Kysely<Database>, record: AttemptRecord): Promise<boolean> {
  const now = isoNow();
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: record.status,
      next_attempt_at: record.nextAttemptAt,
      lease_owner: null,
      lease_expires_at: null,
      last_attempt_at: now,
      response_status: record.responseStatus,
      response_body: record.responseBody,
      error: record.error,
      duration_ms: record.durationMs,
      finished_at: record.status === 'pending' ? null : now,
      ...(record.uncount ? { attempts: sql<number>`attempts - 1` } : {}),
    })
    .where('id', '=', record.id)
    .where('lease_owner', '=', record.owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Holds the webhook's other pending deliveries until `until` after an attempt to it failed: a receiver
 * that is down is tried once per backoff step, not once per event waiting for it. None is counted as
 * attempted; a delivery due later keeps its time.
 */
export async function deferWebhook(db: Kysely<Database>, webhookId: number, until: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: until })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<', until)
    .where('lease_expires_at', 'is', null)
    .execute();
}

/** A delivery as the list shows it. */
export interface DeliveryEntry {
  id: number;
  eventType: string;
  messageId: string;
  status: DeliveryStatus;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  response: { status: number | null; body: string | null; error: string | null; durationMs: number | null } | null;
}

const toEntry = (row: Omit<WebhookDeliveryRow, 'payload' | 'webhook_id' | 'lease_owner' | 'lease_expires_at' | 'finished_at'>): DeliveryEntry => ({
  id: row.id,
  eventType: row.event_type,
  messageId: row.message_id,
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  createdAt: row.created_at,
  lastAttemptAt: row.last_attempt_at,
  nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
  response: row.last_attempt_at === null ? null : { status: row.response_status, body: row.response_body, error: row.error, durationMs: row.duration_ms },
});

/** The webhook's deliveries, newest first, before `beforeId`. */
export async function listDeliveries(db: Kysely<Database>, webhookId: number, page: { beforeId?: number; limit: number }): Promise<DeliveryEntry[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_type', 'message_id', 'status', 'attempts', 'created_at', 'last_attempt_at', 'next_attempt_at', 'response_status', 'response_body', 'error', 'duration_ms'])
    .where('webhook_id', '=', webhookId);
  if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
  return (await query.orderBy('id', 'desc').limit(page.limit).execute()).map(toEntry);
}

/** The webhook's delivery of that webhook-id. */
export async function findDelivery(db: Kysely<Database>, webhookId: number, messageId: string): Promise<DeliveryEntry | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_type', 'message_id', 'status', 'attempts', 'created_at', 'last_attempt_at', 'next_attempt_at', 'response_status', 'response_body', 'error', 'duration_ms'])
    .where('webhook_id', '=', webhookId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
  return row && toEntry(row);
}

export async function countDeliveries(db: Kysely<Database>, webhookId: number): Promise<number> {
  const row = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number | string>().as('n')).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Removes deliveries that ended before `cutoff`; answers how many. */
export async function purgeEndedDeliveries(db: Kysely<Database>, cutoff: string): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries').where('status', 'in', ['delivered', 'failed']).where('finished_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Holds the team's row until the transaction ends (PostgreSQL; SQLite's transactions hold the write lock). */
export async function lockTeam(db: Kysely<Database>, teamId: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('teams').select('id').where('id', '=', teamId).forUpdate().execute();
}
