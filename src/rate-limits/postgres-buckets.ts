// Token buckets in PostgreSQL (the table of migration 0016), so that a key's limit holds across every
// replica: one statement a charge refills the bucket by the database's clock, decides, and takes the
// cost. Concurrent charges to one bucket queue on its row lock, each seeing the one before.
import pg from 'pg';
import type { BucketRule } from '../config.ts';
import { type BucketStore, type Charge, type Decision } from './bucket-store.ts';

/**
 * $1 id, $2 per second, $3 burst, $4 need, $5 cost. A new bucket starts full. `now()` is the
 * statement's start; a charge that waited on the row lock may start before the one it waited for
 * counted, so time never runs backwards (greatest).
 */
const CHARGE = `
insert into rate_buckets as b (id, tokens, at_ms, per_second, burst, admitted)
values ($1, case when $3::float8 >= $4::float8 then least($3, $3 - $5::float8) else $3 end, extract(epoch from now()) * 1000, $2::float8, $3, $3 >= $4)
on conflict (id) do update set
  admitted = least($3, b.tokens + greatest(0, extract(epoch from now()) * 1000 - b.at_ms) * $2 / 1000) >= $4,
  tokens = case
    when least($3, b.tokens + greatest(0, extract(epoch from now()) * 1000 - b.at_ms) * $2 / 1000) >= $4
      then least($3, least($3, b.tokens + greatest(0, extract(epoch from now()) * 1000 - b.at_ms) * $2 / 1000) - $5)
    else least($3, b.tokens + greatest(0, extract(epoch from now()) * 1000 - b.at_ms) * $2 / 1000)
  end,
  at_ms = greatest(b.at_ms, extract(epoch from now()) * 1000),
  per_second = $2,
  burst = $3
returning tokens, admitted`;

/** Buckets that have refilled hold nothing a new one would not. */
const SWEEP = 'delete from rate_buckets where tokens + (extract(epoch from now()) * 1000 - at_ms) * per_second / 1000 >= burst';

/** Buckets known short at once, at most (see refusedLocally). */
const MAX_SHORTFALLS = 10_000;

export interface PostgresBucketOptions {
  url: string;
  schema: string | undefined;
  sweepEveryMs?: number;
  /** Connections of the limiter's own: its statement neither waits behind the requests' pool nor counts as a change of theirs. */
  connections?: number;
}

export class PostgresBuckets implements BucketStore {
  private readonly pool: pg.Pool;
  private readonly sweeper: NodeJS.Timeout;
  private readonly shortfalls = new Map<string, { untilMs: number; need: number; tokens: number }>();

  constructor(options: PostgresBucketOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
      max: options.connections ?? 4,
    });
    // An idle connection lost (a restart, a failover) is replaced at the next charge; unheard, the
    // pool's error event would end the process.
    this.pool.on('error', () => undefined);
    this.sweeper = setInterval(() => {
      this.sweep().catch(() => undefined); // the next sweep tries again
    }, options.sweepEveryMs ?? 60_000).unref();
  }

  async charge(id: string, rule: BucketRule, charge: Charge): Promise<Decision> {
    // A refund may cover what the bucket was short of.
    if (charge.cost < 0) this.shortfalls.delete(id);
    const known = this.refusedLocally(id, charge);
    if (known) return known;
    // Named: each connection parses and plans the statement once, not once a request.
    const { rows } = await this.pool.query<{ tokens: number; admitted: boolean }>({
      name: 'annostore-rate-charge',
      text: CHARGE,
      values: [id, rule.perSecond, rule.burst, charge.need, charge.cost],
    });
    const { tokens, admitted } = rows[0]!;
    const decision = { admitted, tokens, retryAfterMs: admitted ? 0 : ((charge.need - tokens) * 1000) / rule.perSecond };
    if (!admitted) this.remember(id, charge.need, decision);
    return decision;
  }

  /**
   * A bucket the database just found short is not asked again until it can have refilled: charges
   * only take tokens (but a sign-in's refund), so until then every charge that needs as much would be
   * refused anyway. A key flooding the server then costs no statement a request, and the other keys'
   * charges do not queue behind its.
   */
  private refusedLocally(id: string, charge: Charge): Decision | undefined {
    const shortfall = this.shortfalls.get(id);
    if (!shortfall) return undefined;
    const waitMs = shortfall.untilMs - Date.now();
    if (waitMs <= 0) {
      this.shortfalls.delete(id);
      return undefined;
    }
    if (charge.need < shortfall.need) return undefined;
    return { admitted: false, tokens: shortfall.tokens, retryAfterMs: waitMs };
  }

  private remember(id: string, need: number, decision: Decision): void {
    this.shortfalls.delete(id);
    this.shortfalls.set(id, { untilMs: Date.now() + decision.retryAfterMs, need, tokens: decision.tokens });
    // Bounded: the oldest goes first (forgetting one only costs a statement).
    if (this.shortfalls.size > MAX_SHORTFALLS) this.shortfalls.delete(this.shortfalls.keys().next().value!);
  }

  /** Drops every bucket that has refilled; answers how many. */
  async sweep(): Promise<number> {
    return (await this.pool.query(SWEEP)).rowCount ?? 0;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.pool.end();
  }
}
