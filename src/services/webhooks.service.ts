// A team's webhooks as its admins manage them (POST/GET/DELETE /v2/webhooks) and the list of their
// deliveries. The secret that signs deliveries is answered once, when the webhook is made.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/types.ts';
import { conflict, notFound, validation } from '../errors.ts';
import * as webhooks from '../repositories/webhooks.repository.ts';
import type { DeliveryEntry, Webhook } from '../repositories/webhooks.repository.ts';
import { CREATE_RESOLVE_DEADLINE_MS, TargetRefused, resolveTarget } from '../webhooks/target-policy.ts';
import type { Principal } from './keys.service.ts';
import { type Page, type PageRequest, pageOfRows } from './paging.ts';
import { checkIfMatch } from './preconditions.ts';
import { type WebhookEvent, recordPing } from './webhook-events.ts';

/** Webhooks a team may have at once: each event is written once per webhook in the change's transaction. */
export const MAX_WEBHOOKS_PER_TEAM = 20;

/** A secret in the form Standard Webhooks libraries take: `whsec_` and 32 random bytes in base64. */
const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Checks a URL a webhook would send to, as deliveries will (the host's addresses included); a 400 at /url otherwise. */
export async function checkTarget(config: Config, url: string): Promise<void> {
  try {
    await resolveTarget(url, config.webhooks, { deadlineMs: CREATE_RESOLVE_DEADLINE_MS });
  } catch (error) {
    if (error instanceof TargetRefused) throw validation(`/url: ${error.message}`, { pointer: '/url' });
    throw error;
  }
}

export async function createWebhook(
  db: Kysely<Database>,
  config: Config,
  principal: Principal,
  request: { url: string; events: WebhookEvent[]; description?: string },
): Promise<Webhook & { secret: string }> {
  await checkTarget(config, request.url);
  const secret = newSecret();
  const id = await db.transaction().execute(async (trx) => {
    // Held so two creates at once cannot both pass the count.
    await webhooks.lockTeam(trx, principal.teamId);
    if ((await webhooks.countWebhooks(trx, principal.teamId)) >= MAX_WEBHOOKS_PER_TEAM) {
      throw conflict(`a team may have at most ${MAX_WEBHOOKS_PER_TEAM} webhooks; remove one first`, { limit: MAX_WEBHOOKS_PER_TEAM });
    }
    return webhooks.insertWebhook(trx, {
      teamId: principal.teamId,
      url: request.url,
      events: [...new Set(request.events)],
      secret,
      description: request.description ?? '',
      createdBy: principal.keyId,
    });
  });
  return { ...(await getWebhook(db, principal.teamId, id)), secret };
}

export async function listWebhooks(db: Kysely<Database>, teamId: number, request: PageRequest): Promise<Page<Webhook>> {
  const found = pageOfRows(await webhooks.listWebhooks(db, teamId, { afterId: request.afterId, limit: request.limit + 1 }), request.limit);
  return { items: found.rows, nextAfterId: found.nextAfterId, ...(request.total ? { total: await webhooks.countWebhooks(db, teamId) } : {}) };
}

/** The team's webhook, or a 404 (missing, or another team's). */
export async function getWebhook(db: Kysely<Database>, teamId: number, id: number): Promise<Webhook> {
  const hook = await webhooks.findWebhook(db, teamId, id);
  if (!hook) throw notFound('webhook', { webhookId: id });
  return hook;
}

/** Removes the team's webhook and its deliveries, pending ones too; honours `ifMatch`. */
export async function deleteWebhook(db: Kysely<Database>, teamId: number, id: number, ifMatch?: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await webhooks.findWebhook(trx, teamId, id, { lock: true });
    if (!current) throw notFound('webhook', { webhookId: id });
    checkIfMatch(current, ifMatch);
    await webhooks.deleteWebhook(trx, teamId, id);
  });
}

/** The webhook's deliveries, newest first; `afterId` is the last id of the page before. */
export async function listDeliveries(db: Kysely<Database>, teamId: number, webhookId: number, request: PageRequest): Promise<Page<DeliveryEntry>> {
  await getWebhook(db, teamId, webhookId);
  const found = pageOfRows(await webhooks.listDeliveries(db, webhookId, { beforeId: request.afterId, limit: request.limit + 1 }), request.limit);
  return { items: found.rows, nextAfterId: found.nextAfterId, ...(request.total ? { total: await webhooks.countDeliveries(db, webhookId) } : {}) };
}

/** Queues a `webhook.test` delivery to the team's webhook and answers it as the list shows it. */
export async function pingWebhook(db: Kysely<Database>, teamId: number, id: number): Promise<DeliveryEntry> {
  const messageId = await db.transaction().execute(async (trx) => {
    if (!(await webhooks.findWebhook(trx, teamId, id, { lock: true }))) throw notFound('webhook', { webhookId: id });
    return recordPing(trx, id);
  });
  const delivery = await webhooks.findDelivery(db, id, messageId);
  // Removed with its webhook in the moment between.
  if (!delivery) throw notFound('webhook', { webhookId: id });
  return delivery;
}
