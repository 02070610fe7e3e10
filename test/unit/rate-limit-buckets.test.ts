// The token-bucket arithmetic and the in-memory store on a clock of the test's own; the client's
// plan after a 429; the settings read from the environment.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planAfterRateLimit } from '../../src/client/retry.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { byteCharge, retryAfterSeconds } from '../../src/rate-limits/bucket-store.ts';
import { MemoryBuckets } from '../../src/rate-limits/memory-buckets.ts';

test('a bucket: the burst at once, then the rate; a refusal takes nothing and says when', async () => {
  let now = 0;
  const buckets = new MemoryBuckets({ now: () => now });
  const rule = { perSecond: 2, burst: 3 };
  const one = { need: 1, cost: 1 };
  for (let i = 0; i < 3; i++) assert.equal(buckets.charge('k', rule, one).admitted, true);
  const refused = buckets.charge('k', rule, one);
  assert.deepEqual(refused, { admitted: false, tokens: 0, retryAfterMs: 500 });
  assert.equal(retryAfterSeconds(refused), 1);
  now = 499;
  assert.equal(buckets.charge('k', rule, one).admitted, false);
  now = 500;
  assert.equal(buckets.charge('k', rule, one).admitted, true, 'one token after half a second');
  now = 60_000;
  assert.equal(buckets.charge('k', rule, one).tokens, 2, 'never more than the burst');
  await buckets.close();
});

test('bytes: a body larger than the burst needs a full bucket and leaves a debt that is paid back first', async () => {
  let now = 0;
  const buckets = new MemoryBuckets({ now: () => now });
  const rule = { perSecond: 1000, burst: 10_000 };
  assert.equal(buckets.charge('b', rule, byteCharge(rule, 25_000)).admitted, true);
  const next = buckets.charge('b', rule, byteCharge(rule, 100));
  assert.equal(next.admitted, false);
  assert.equal(next.retryAfterMs, 15_100, 'the debt of 15,000 bytes and the 100 asked for, at 1,000 a second');
  now = 15_100;
  assert.equal(buckets.charge('b', rule, byteCharge(rule, 100)).admitted, true);
  await buckets.close();
});

test('a refund (a successful sign-in) gives a token back, never past the burst', async () => {
  const buckets = new MemoryBuckets({ now: () => 0 });
  const rule = { perSecond: 0.1, burst: 2 };
  buckets.charge('s', rule, { need: 1, cost: 1 });
  buckets.charge('s', rule, { need: 1, cost: 1 });
  assert.equal(buckets.charge('s', rule, { need: 1, cost: 1 }).admitted, false);
  assert.equal(buckets.charge('s', rule, { need: 0, cost: -1 }).tokens, 1);
  assert.equal(buckets.charge('s', rule, { need: 1, cost: 1 }).admitted, true);
  await buckets.close();
});

test('memory stays bounded: full buckets are swept, and past the cap the least recently charged go', async () => {
  let now = 0;
  const buckets = new MemoryBuckets({ now: () => now, maxBuckets: 100 });
  const rule = { perSecond: 1, burst: 5 };
  for (let i = 0; i < 1000; i++) buckets.charge(`k${i}`, rule, { need: 1, cost: 1 });
  assert.equal(buckets.size, 100);
  assert.equal(buckets.charge('k999', rule, { need: 1, cost: 1 }).tokens, 3, 'a recent bucket is kept');
  assert.equal(buckets.charge('k0', rule, { need: 1, cost: 1 }).tokens, 4, 'an evicted one starts full again');
  now = 1000;
  buckets.sweep();
  assert.equal(buckets.size, 1, 'only k999, still short, is kept once the others have refilled');
  await buckets.close();
});

test('the client after a 429: waits out Retry-After with a little jitter, gives up on a long one or past its budget', () => {
  const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 30_000, rateLimitedRetries: 3 };
  assert.deepEqual(planAfterRateLimit(policy, 20, 0, () => 0), { waitMs: 20_000 }, 'past maxDelayMs');
  assert.deepEqual(planAfterRateLimit(policy, 20, 0, () => 1), { waitMs: 21_000 }, 'at most a second more');
  assert.deepEqual(planAfterRateLimit(policy, 2, 0, () => 1), { waitMs: 2200 }, 'at most a tenth more');
  assert.equal(planAfterRateLimit(policy, 31, 0), 'give-up');
  assert.equal(planAfterRateLimit(policy, 1, 3), 'give-up');
  assert.equal(planAfterRateLimit(policy, undefined, 0), 'backoff');
  assert.equal(planAfterRateLimit(policy, 0, 0), 'backoff');
});

test('settings: limits off unless set, the burst twice the rate unless told, failed sign-ins limited by default', () => {
  const none = loadConfig({}).rateLimits;
  assert.equal(none.requests, null);
  assert.equal(none.uploadBytes, null);
  assert.deepEqual(none.signInFailures, { perSecond: 10 / 60, burst: 10 });
  assert.equal(none.store, 'auto');
  const set = loadConfig({
    RATE_LIMIT_REQUESTS_PER_SECOND: '20',
    RATE_LIMIT_UPLOAD_BYTES_PER_SECOND: '1000000',
    RATE_LIMIT_UPLOAD_BURST_BYTES: '50000000',
    SIGN_IN_FAILURES_PER_MINUTE: '0',
    RATE_LIMIT_STORE: 'memory',
  }).rateLimits;
  assert.deepEqual(set.requests, { perSecond: 20, burst: 40 });
  assert.deepEqual(set.uploadBytes, { perSecond: 1_000_000, burst: 50_000_000 });
  assert.equal(set.signInFailures, null);
  assert.equal(set.store, 'memory');
  assert.throws(() => loadConfig({ RATE_LIMIT_REQUESTS_PER_SECOND: '-1' }), ConfigError);
  assert.throws(() => loadConfig({ RATE_LIMIT_REQUESTS_PER_SECOND: '5', RATE_LIMIT_REQUEST_BURST: '0.5' }), ConfigError);
  assert.throws(() => loadConfig({ RATE_LIMIT_STORE: 'redis' }), ConfigError);
});
