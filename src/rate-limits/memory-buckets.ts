// Token buckets in this process's memory: one replica's view only (docs/rate-limits.md). The map is
// bounded: a bucket that has refilled holds nothing a new bucket would not, so it is dropped; past
// `maxBuckets` (many keys or addresses at once) the least recently charged go first.
import type { BucketRule } from '../config.ts';
import { type BucketStore, type Charge, type Decision, decide, refilled } from './bucket-store.ts';

interface Bucket {
  tokens: number;
  atMs: number;
  /** When the bucket is full again, so the sweep need not know its rule. */
  fullAtMs: number;
}

export interface MemoryBucketOptions {
  maxBuckets?: number;
  /** How often full buckets are dropped. */
  sweepEveryMs?: number;
  now?: () => number;
}

export class MemoryBuckets implements BucketStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxBuckets: number;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryBucketOptions = {}) {
    this.maxBuckets = options.maxBuckets ?? 100_000;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), options.sweepEveryMs ?? 60_000).unref();
  }

  get size(): number {
    return this.buckets.size;
  }

  charge(id: string, rule: BucketRule, charge: Charge): Decision {
    const now = this.now();
    const bucket = this.buckets.get(id);
    const decision = decide(rule, bucket ? refilled(rule, bucket.tokens, now - bucket.atMs) : rule.burst, charge);
    if (bucket) this.buckets.delete(id); // re-inserted below: the Map's order is the order of last use
    const fullAtMs = now + ((rule.burst - decision.tokens) * 1000) / rule.perSecond;
    if (fullAtMs > now) {
      this.buckets.set(id, { tokens: decision.tokens, atMs: now, fullAtMs });
      // Too many (many keys or addresses at once): the least recently charged goes; it would start
      // full if it came back. The sweep, not this, drops the full ones: this stays O(1) per charge.
      if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
    }
    return decision;
  }

  /** Drops every bucket that has refilled. */
  sweep(): void {
    const now = this.now();
    for (const [id, bucket] of this.buckets) if (bucket.fullAtMs <= now) this.buckets.delete(id);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.buckets.clear();
  }
}
