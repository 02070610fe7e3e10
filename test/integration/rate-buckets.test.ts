// Both bucket stores follow the same arithmetic: the one in memory and the one in PostgreSQL (its
// statement refills by the database's clock), on real time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import type { BucketStore } from '../../src/rate-limits/bucket-store.ts';
import { byteCharge } from '../../src/rate-limits/bucket-store.ts';
import { MemoryBuckets } from '../../src/rate-limits/memory-buckets.ts';
import { PostgresBuckets } from '../../src/rate-limits/postgres-buckets.ts';
import { dialects } from '../helpers/dialects.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const postgres = dialects[1]!;

const stores: { name: string; skip: string | false; open(): Promise<{ store: BucketStore; close(): Promise<void> }> }[] = [
  {
    name: 'memory',
    skip: false,
    async open() {
      const store = new MemoryBuckets();
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: postgres.skip,
    async open() {
      const config: Config = postgres.freshConfig();
      const ctx: Context = await createContext(config); // migrates: the table of 0016
      const store = new PostgresBuckets({ url: config.databaseUrl!, schema: config.databaseSchema });
      return {
        store,
        async close() {
          await store.close();
          await ctx.close();
          await postgres.cleanup(config);
        },
      };
    },
  },
];

for (const kind of stores) {
  describe(`rate buckets in ${kind.name}`, { skip: kind.skip }, () => {
    let opened: Awaited<ReturnType<(typeof stores)[number]['open']>>;
    before(async () => {
      opened = await kind.open();
    });
    after(async () => opened?.close());

    test('a new bucket is full; a charge after a long idle starts from the burst, not past it', async () => {
      const rule = { perSecond: 1000, burst: 5 };
      const first = await opened.store.charge('idle', rule, { need: 1, cost: 1 });
      assert.deepEqual([first.admitted, first.tokens], [true, 4]);
      await sleep(50); // 50 tokens' worth of time
      const second = await opened.store.charge('idle', rule, { need: 1, cost: 1 });
      assert.deepEqual([second.admitted, second.tokens], [true, 4]);
    });

    test('a body past the burst is admitted on a full bucket; the debt refuses the next charge for as long as it takes', async () => {
      const rule = { perSecond: 10, burst: 5 };
      const big = await opened.store.charge('debt', rule, byteCharge(rule, 20));
      assert.equal(big.admitted, true);
      assert.ok(big.tokens <= -14.9 && big.tokens >= -15, String(big.tokens));
      const next = await opened.store.charge('debt', rule, { need: 1, cost: 1 });
      assert.equal(next.admitted, false);
      assert.ok(next.retryAfterMs > 1500 && next.retryAfterMs <= 1600, String(next.retryAfterMs));
    });

    test('a refund gives a token back, never past the burst', async () => {
      const rule = { perSecond: 0.001, burst: 2 };
      await opened.store.charge('refund', rule, { need: 1, cost: 1 });
      await opened.store.charge('refund', rule, { need: 1, cost: 1 });
      assert.equal((await opened.store.charge('refund', rule, { need: 1, cost: 1 })).admitted, false);
      const back = await opened.store.charge('refund', rule, { need: 0, cost: -1 });
      assert.ok(back.tokens >= 1 && back.tokens < 1.01, String(back.tokens));
      assert.equal((await opened.store.charge('refund', rule, { need: 1, cost: 0 })).admitted, true, 'the token given back is there');
      await opened.store.charge('refund', rule, { need: 0, cost: -5 });
      assert.ok((await opened.store.charge('refund', rule, { need: 0, cost: 0 })).tokens <= 2);
    });
  });
}
