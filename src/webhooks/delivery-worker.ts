// Sends the outbox: wherever task runners run (the server process and `annostore worker`), a worker
// claims due deliveries with a lease (one per webhook at a time), signs and POSTs a few at once, and records how each attempt ended. A lease
// outlives the request timeout, so only a worker that died (or lost the database) lets a delivery go
// to another; it is then sent again with the same webhook-id: delivery is at least once.
import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Context } from '../context.ts';
import * as deliveries from '../repositories/webhooks.repository.ts';
import type { ClaimedDelivery } from '../repositories/webhooks.repository.ts';
import { defaultOwner } from '../tasks/runner.ts';
import { type AttemptResult, isSuccess, postOnce } from './deliver.ts';
import { TargetRefused, resolveTarget } from './target-policy.ts';

export interface DeliveryWorker {
  /** Stops claiming; attempts under way are cut short and handed back uncounted. */
  stop(): Promise<void>;
}

/** Deliveries one process sends at once, each to a different webhook: a receiver that hangs holds one of them only. */
const SENDING_AT_ONCE = 4;
/** The longest wait between two attempts, however many came before. */
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Ended deliveries are listed this long, then removed. */
const KEEP_ENDED_MS = 7 * 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** The part of an attempt's timeout its DNS resolution may take: half, at most 5 s; the rest is for the POST. */
export const resolveDeadline = (timeoutMs: number): number => Math.min(Math.ceil(timeoutMs / 2), 5000);

/**
 * The wait after attempt `attempt` (from 1): the base doubled per attempt, up to an hour, and drawn
 * from its upper half so that receivers coming back up are not met by every sender at once.
 */
export function retryDelay(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), MAX_RETRY_DELAY_MS);
  return Math.round(full / 2 + (random() * full) / 2);
}

export function startDeliveryWorker(ctx: Context, log: FastifyBaseLogger, options: { owner?: string } = {}): DeliveryWorker {
  const settings = ctx.config.webhooks;
  const db = ctx.db.kysely;
  const owner = options.owner ?? `${defaultOwner()}:webhooks`;
  const stopping = new AbortController();
  const waits = new Set<() => void>();

  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping.signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        waits.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waits.add(done);
    });

  async function attempt(claimed: ClaimedDelivery): Promise<AttemptResult> {
    // Resolving and sending share the attempt's timeout: a silent DNS server cannot hold the slot longer.
    const started = Date.now();
    let target;
    try {
      target = await resolveTarget(claimed.url, settings, { deadlineMs: resolveDeadline(settings.timeoutMs) });
    } catch (error) {
      if (error instanceof TargetRefused) return { status: null, body: null, error: `refused: ${error.message}`, durationMs: Date.now() - started };
      throw error;
    }
    // Signed at each attempt: receivers refuse a timestamp far from their clock.
    const at = new Date();
    const signature = new Webhook(claimed.secret).sign(claimed.messageId, at, claimed.payload);
    const headers = {
      'webhook-id': claimed.messageId,
      // The second the signature was made for.
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
      'user-agent': 'Annostore-Webhooks',
    };
    return postOnce(target, headers, claimed.payload, { timeoutMs: Math.max(1, settings.timeoutMs - (Date.now() - started)), signal: stopping.signal });
  }

  async function deliver(claimed: ClaimedDelivery): Promise<void> {
    const result = await attempt(claimed);
    const base = { id: claimed.id, owner, responseStatus: result.status, responseBody: result.body, error: result.error, durationMs: result.durationMs };
    let recorded: boolean;
    if (isSuccess(result)) {
      recorded = await deliveries.recordAttempt(db, { ...base, status: 'delivered', nextAttemptAt: null });
    } else if (stopping.signal.aborted && result.status === null) {
      // Cut short by a shutdown: due again at once, for another worker, and not counted against it.
      recorded = await deliveries.recordAttempt(db, { ...base, status: 'pending', nextAttemptAt: new Date().toISOString(), uncount: true });
    } else {
      const next = Date.now() + retryDelay(claimed.attempt, settings.retryBaseMs);
      const giveUpAt = Date.parse(claimed.createdAt) + settings.retryWindowMs;
      const status = next > giveUpAt ? 'failed' : 'pending';
      recorded = await deliveries.recordAttempt(db, { ...base, status, nextAttemptAt: status === 'pending' ? new Date(next).toISOString() : null });
      // The receiver is failing: the webhook's other deliveries wait for the same retry time (oldest first then).
      if (recorded) await deliveries.deferWebhook(db, claimed.webhookId, new Date(next).toISOString());
      log.warn({ deliveryId: claimed.id, webhookId: claimed.webhookId, attempt: claimed.attempt, status: result.status, error: result.error, willRetry: status === 'pending' }, 'webhook delivery attempt failed');
    }
    if (!recorded) log.warn({ deliveryId: claimed.id }, 'webhook delivery lease lost before its attempt was recorded; it will be sent again');
  }

  let lastPurge = 0;
  async function purge(): Promise<void> {
    if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    const removed = await deliveries.purgeEndedDeliveries(db, new Date(Date.now() - KEEP_ENDED_MS).toISOString());
    if (removed > 0) log.info({ removed }, 'ended webhook deliveries past their retention removed');
  }

  /**
   * One loop claims; each claimed delivery is sent beside the others, up to SENDING_AT_ONCE. An idle
   * worker asks the database once per poll.
   */
  async function loop(): Promise<void> {
    const sending = new Set<Promise<void>>();
    while (!stopping.signal.aborted) {
      if (sending.size >= SENDING_AT_ONCE) {
        await Promise.race(sending);
        continue;
      }
      let claimed: ClaimedDelivery | undefined;
      try {
        await purge();
        claimed = await deliveries.claimDelivery(db, { owner, leaseMs: settings.leaseMs });
      } catch (error) {
        log.error({ err: error }, 'webhook delivery claim failed');
      }
      if (!claimed) {
        await idle(settings.pollMs);
        continue;
      }
      const delivery = claimed;
      const sent: Promise<void> = deliver(delivery)
        .catch((error: unknown) => log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery failed unexpectedly; its lease will expire'))
        .finally(() => sending.delete(sent));
      sending.add(sent);
    }
    await Promise.all(sending);
  }

  const looping = loop();
  return {
    async stop() {
      stopping.abort();
      for (const wake of [...waits]) wake();
      await looping;
    },
  };
}
