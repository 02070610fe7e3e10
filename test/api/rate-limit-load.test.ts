// A short load on a listening server: 100 clients on one key, as fast as they can for 3 seconds,
// while a second key makes requests at a modest pace. The first key gets 429s, each with
// Retry-After, and not one 5xx; the second key gets only 2xx. On both databases (PostgreSQL: the
// buckets are in its table).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const CLIENTS = 100;
const LOAD_MS = 3000;
// Low enough that 100 clients pass it even on a machine whose load lets each make few requests.
const RATE = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A GET through node:http on its own keep-alive agent; answers the status. */
function get(url: string, key: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { 'x-api-key': key } }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode!));
      })
      .once('error', reject);
  });
}

for (const dialect of dialects) {
  describe(`rate limits under load on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await startTestApp(dialect, { rateLimits: { requests: { perSecond: RATE, burst: RATE }, uploadBytes: null, signInFailures: null, store: 'auto' } });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    after(async () => t?.close());

    test(`${CLIENTS} clients on one key: 429s with Retry-After and no 5xx; a second key only 2xx`, async (context) => {
      // The second key's connection is opened before the load: under a flood, Node accepts a new
      // connection only once the flood eases, which would measure that and not the limiter.
      const calmAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      assert.equal(await get(`${base}/healthz`, '', calmAgent), 200);
      const statuses = new Map<number, number>();
      let withoutRetryAfter = 0;
      const second: number[] = [];
      const end = Date.now() + LOAD_MS;
      const client = async () => {
        while (Date.now() < end) {
          const res = await fetch(`${base}/v2/projects`, { headers: { 'x-api-key': t.key } });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 429 && !/^[1-9]\d*$/.test(res.headers.get('retry-after') ?? '')) withoutRetryAfter++;
        }
      };
      const calm = async () => {
        while (Date.now() < end) {
          second.push(await get(`${base}/v2/projects`, t.otherKey, calmAgent));
          await sleep(50);
        }
      };
      const started = Date.now();
      await Promise.all([...Array.from({ length: CLIENTS }, client), calm()]);
      // The load lasts LOAD_MS and then as long as its last answers take to come, refilling all the while.
      const seconds = (Date.now() - started) / 1000;
      const summary = JSON.stringify(Object.fromEntries(statuses));
      context.diagnostic(`first key: ${summary}; second key: ${second.length} requests`);
      const limited = statuses.get(429) ?? 0;
      const admitted = statuses.get(200) ?? 0;
      assert.ok(limited > 0, `some 429s: ${summary}`);
      assert.equal(withoutRetryAfter, 0, 'every 429 says when to come back');
      assert.ok([...statuses.keys()].every((s) => s === 200 || s === 429), `only 200 and 429: ${summary}`);
      // The burst and RATE a second for as long as the load lasted (a few more for the rounding of time).
      assert.ok(admitted >= RATE + 2 * RATE && admitted <= RATE + RATE * seconds + 10, `admitted ${admitted} in ${seconds} s of ${summary}`);
      // Its requests wait their turn among the first key's (on a machine of two cores shared with the
      // load): a few, all answered.
      assert.ok(second.length >= 3, `the second key made ${second.length} requests`);
      assert.ok(second.every((s) => s === 200), `the second key: ${JSON.stringify(second)}`);
      calmAgent.destroy();
    });
  });
}
