// The contract of a place that keeps token buckets (memory-buckets.ts per process,
// postgres-buckets.ts shared by every replica on one PostgreSQL), and the arithmetic both follow.
import type { BucketRule } from '../config.ts';

/**
 * One charge to a bucket: admitted when the bucket holds at least `need` tokens, and then `cost` is
 * taken (it may leave the bucket below zero: a debt the refill pays back before the next admission;
 * a negative cost gives tokens back). A refused charge takes nothing.
 */
export interface Charge {
  readonly need: number;
  readonly cost: number;
}

export interface Decision {
  readonly admitted: boolean;
  /** Tokens left (admitted) or held (refused) after the charge. */
  readonly tokens: number;
  /** Refused: how long until the bucket holds `need`, in ms; 0 when admitted. */
  readonly retryAfterMs: number;
}

export interface BucketStore {
  /** Charges the bucket `id` (a new bucket starts full). */
  charge(id: string, rule: BucketRule, charge: Charge): Promise<Decision> | Decision;
  close(): Promise<void>;
}

/** A bucket's tokens `elapsedMs` after it held `tokens`: refilled at the rule's rate, never past the burst. */
export const refilled = (rule: BucketRule, tokens: number, elapsedMs: number): number =>
  Math.min(rule.burst, tokens + (Math.max(0, elapsedMs) * rule.perSecond) / 1000);

/** The outcome of a charge to a bucket holding `tokens` (already refilled). */
export function decide(rule: BucketRule, tokens: number, charge: Charge): Decision {
  if (tokens >= charge.need) return { admitted: true, tokens: Math.min(rule.burst, tokens - charge.cost), retryAfterMs: 0 };
  return { admitted: false, tokens, retryAfterMs: ((charge.need - tokens) * 1000) / rule.perSecond };
}

/** The charge of a request of `bytes` body bytes: a body larger than the burst needs a full bucket and leaves it in debt. */
export const byteCharge = (rule: BucketRule, bytes: number): Charge => ({ need: Math.min(bytes, rule.burst), cost: bytes });

/** Retry-After in whole seconds (never 0: a client told 0 would come straight back). */
export const retryAfterSeconds = (decision: Decision): number => Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
