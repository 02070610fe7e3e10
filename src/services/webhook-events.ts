// The events a webhook may ask for, and the one way to record one: in the transaction of the change it
// reports, as a delivery row per subscribed webhook (the outbox). The row commits with the change or
// rolls back with it; a worker sends it afterwards (webhooks/delivery-worker.ts).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';
import { insertDeliveries, subscribersOf } from '../repositories/webhooks.repository.ts';

export const WEBHOOK_EVENTS = [
  'task.started',
  'task.finished',
  'task.error',
  'task.stopped',
  'project.deleted', 'dataset.deleted',
  'annotation.updated',
  'job.created',
  'job.deleted',
  'job.stage_changed',
  'job.image_changed',
  'job.issue_opened',
  'job.issue_resolved',
  'job.comment_added',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event of POST /v2/webhooks/:id/test: sent to that webhook only, whatever events it wants. */
export const PING_EVENT = 'webhook.test';

/** The body of every delivery (Standard Webhooks' envelope). */
export interface EventPayload {
  type: string;
  timestamp: string;
  data: unknown;
}

/** A webhook-id: unique per delivery, the same on each of its attempts. */
export const newMessageId = (): string => `msg_${randomBytes(16).toString('base64url')}`;

/**
 * Records an event of the team for each of its webhooks that wants `type`. `trx` must be the
 * transaction that makes the change: called outside one, an event could be sent for a change that
 * then rolled back, or be lost with a process that died between the two.
 */
export async function recordEvent(trx: Kysely<Database>, teamId: number, type: WebhookEvent, data: unknown): Promise<void> {
  await recordEvents(trx, teamId, type, [data]);
}

/** Rows written by one insert: well under the bind-parameter limits of both databases. */
const DELIVERIES_PER_INSERT = 500;

/** recordEvent for several events of one type and change (one per image a rewrite touched). */
export async function recordEvents(trx: Kysely<Database>, teamId: number, type: WebhookEvent, data: readonly unknown[]): Promise<void> {
  if (!trx.isTransaction) throw new Error(`the ${type} event must be recorded in the transaction of its change`);
  if (data.length === 0) return;
  const webhookIds = await subscribersOf(trx, teamId, type);
  if (webhookIds.length === 0) return;
  const timestamp = isoNow();
  const rows = data.flatMap((d) => {
    const payload = JSON.stringify({ type, timestamp, data: d } satisfies EventPayload);
    return webhookIds.map((webhookId) => ({ webhookId, eventType: type, messageId: newMessageId(), payload, createdAt: timestamp }));
  });
  for (let from = 0; from < rows.length; from += DELIVERIES_PER_INSERT) await insertDeliveries(trx, rows.slice(from, from + DELIVERIES_PER_INSERT));
}

/** Records a ping of one webhook (POST /v2/webhooks/:id/test), sent like any event; answers its webhook-id. */
export async function recordPing(trx: Kysely<Database>, webhookId: number): Promise<string> {
  const timestamp = isoNow();
  const messageId = newMessageId();
  const payload = JSON.stringify({ type: PING_EVENT, timestamp, data: { webhookId } } satisfies EventPayload);
  await insertDeliveries(trx, [{ webhookId, eventType: PING_EVENT, messageId, payload, createdAt: timestamp }]);
  return messageId;
}
