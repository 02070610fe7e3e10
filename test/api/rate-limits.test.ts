// Rate limits through the real app on both databases (PostgreSQL keeps the buckets in its table,
// SQLite in the process): a key over its request or upload-bytes bucket is answered 429 RATE_LIMITED
// with Retry-After on v1 and v2, another key is not, the bucket refills, a refused upload leaves
// nothing behind, and repeated wrong keys at sign-in lock out that address only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { buildApp } from '../../src/app.ts';
import { createContext } from '../../src/context.ts';
import type { RateLimitSettings } from '../../src/config.ts';
import { dialects } from '../helpers/dialects.ts';
import { hashOf } from '../helpers/factories.ts';
import { multipartBody } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

const OFF: RateLimitSettings = { requests: null, uploadBytes: null, signInFailures: null, store: 'auto' };

/** A PNG of random pixels: about width × height × 3 bytes, whatever the compression. */
const noisePng = (width: number, height: number): Promise<Buffer> =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png().toBuffer();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of dialects) {
  describe(`rate limits on ${dialect.name}`, { skip: dialect.skip }, () => {
    describe('requests per key', () => {
      let t: TestApp;
      before(async () => {
        t = await startTestApp(dialect, { rateLimits: { ...OFF, requests: { perSecond: 2, burst: 3 } } });
      });
      after(async () => t?.close());

      test('past the burst: 429 with Retry-After on v2 and v1, another key unaffected, and again once refilled', async () => {
        for (let i = 0; i < 3; i++) assert.equal((await t.request({ method: 'GET', url: '/v2/projects' })).statusCode, 200, `request ${i}`);
        const v2 = await t.request({ method: 'GET', url: '/v2/projects' });
        const problem = assertProblem(v2, 429, 'RATE_LIMITED');
        assert.equal(v2.headers['retry-after'], '1', 'half a second to the next token, in whole seconds');
        assert.equal(problem.limit, 'requests');
        assert.equal(problem.retryAfter, 1);

        const v1 = await t.request({ method: 'GET', url: '/v1/projects' });
        assert.equal(v1.statusCode, 429);
        assert.equal(v1.headers['retry-after'], '1');
        assert.match(String(v1.headers['content-type']), /^application\/json/);
        const body = json<{ error: string; details: { message: string; limit: string; retryAfter: number } }>(v1);
        assert.equal(body.error, 'RATE_LIMITED');
        assert.equal(body.details.limit, 'requests');
        assert.match(body.details.message, /too many requests/);

        // Another team's key, and another key of the same team, have buckets of their own.
        assert.equal((await t.request({ method: 'GET', url: '/v2/projects', key: t.otherKey })).statusCode, 200);
        assert.equal((await t.request({ method: 'GET', url: '/v1/projects', key: t.readOnlyKey })).statusCode, 200);

        await sleep(1000);
        assert.equal((await t.request({ method: 'GET', url: '/v2/projects' })).statusCode, 200, 'refilled after Retry-After');
      });

      test('two replicas on one database share the bucket (PostgreSQL); each its own on SQLite', async () => {
        await sleep(1600); // full again
        const other = await createContext(t.config, { migrate: false });
        const replica = await buildApp(other);
        try {
          const at = (app: FastifyInstance, key = t.key) => app.inject({ method: 'GET', url: '/v2/projects', headers: { 'x-api-key': key } });
          // The replica's first answer (its connections, its key cache) with another key, so that the
          // four below come within a few milliseconds of each other (a token comes every 500 ms).
          assert.equal((await at(replica, t.otherKey)).statusCode, 200);
          await sleep(1600);
          for (const app of [t.app, replica, t.app]) assert.equal((await at(app)).statusCode, 200);
          const fourth = await at(replica);
          if (dialect.name === 'postgres') assert.equal(fourth.statusCode, 429, 'the other replica charged the same bucket');
          else assert.equal(fourth.statusCode, 200, 'SQLite: one bucket a process (one process serves a SQLite database)');
        } finally {
          await replica.close();
          await other.close();
        }
      });

      test('requests without a key (health, the web page, a refused key) are not charged to anyone', async () => {
        await sleep(1600); // full again
        for (let i = 0; i < 10; i++) assert.equal((await t.request({ method: 'GET', url: '/healthz', key: null })).statusCode, 200);
        for (let i = 0; i < 5; i++) assert.equal((await t.request({ method: 'GET', url: '/v2/projects', key: 'ak_wrongwrongwrongwrongwrongwrongwr' })).statusCode, 401);
        assert.equal((await t.request({ method: 'GET', url: '/v2/projects' })).statusCode, 200);
      });
    });

    describe('upload bytes per key', () => {
      let t: TestApp;
      const BURST = 100_000;
      before(async () => {
        t = await startTestApp(dialect, { rateLimits: { ...OFF, uploadBytes: { perSecond: 10_000, burst: BURST } } });
      });
      after(async () => t?.close());

      const upload = (png: Buffer, name: string, key = t.key) => {
        const body = multipartBody([{ key: 'a', metadata: { id: `ds/img/${name}`, hash: hashOf(png), type: 'image', format: 'supervisely' }, content: png }]);
        return t.request({ method: 'POST', url: '/v1/tasks/import/files', ...body, key });
      };
      const missing = async (png: Buffer, key = t.key) => json<string[]>(await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: [hashOf(png)], key }));
      const staged = () => {
        const dir = path.join(t.config.dataDir, 'tmp', 'uploads');
        return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }) : [];
      };

      test('an upload the bucket cannot cover is refused before any of it is stored; another key uploads', async () => {
        const first = await noisePng(100, 100); // ~30 kB
        const second = await noisePng(165, 165); // ~82 kB: more than what is left
        assert.ok(first.length + second.length > BURST && first.length < BURST / 2, `${first.length} + ${second.length}`);
        assert.equal((await upload(first, 'first.png')).statusCode, 200);
        const refused = await upload(second, 'second.png');
        assert.equal(refused.statusCode, 429, refused.body);
        const body = json<{ error: string; details: { limit: string; retryAfter: number } }>(refused);
        assert.equal(body.error, 'RATE_LIMITED');
        assert.equal(body.details.limit, 'upload-bytes');
        const retryAfter = Number(refused.headers['retry-after']);
        // The bytes missing at 10 kB/s: a few seconds, rounded up.
        assert.ok(retryAfter >= 1 && retryAfter <= 8, `Retry-After ${retryAfter}`);
        assert.equal(body.details.retryAfter, retryAfter);
        assert.deepEqual(await missing(second), [hashOf(second)], 'nothing of the refused upload is stored');
        assert.deepEqual(staged(), [], 'nor left in the staging folder');
        // JSON requests are body bytes too, but small ones pass while the bucket is not empty.
        assert.deepEqual(await missing(first), []);
        assert.equal((await upload(second, 'second.png', t.otherKey)).statusCode, 200, 'another key has its own bucket');
      });

      test('an upload larger than the burst passes on a full bucket and leaves it in debt', async () => {
        const big = await noisePng(220, 220); // ~145 kB
        assert.ok(big.length > BURST);
        // The admin key's bucket is still full (a read-only key may not upload).
        const answer = await upload(big, 'big.png', t.adminKey);
        assert.equal(answer.statusCode, 200, answer.body);
        const next = await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: [hashOf(big)], key: t.adminKey });
        assert.equal(next.statusCode, 429, 'in debt: even a small request waits until it is paid back');
        assert.ok(Number(next.headers['retry-after']) >= 4, String(next.headers['retry-after']));
      });
    });

    describe('upload bytes of a body without Content-Length', () => {
      let t: TestApp;
      let base: string;
      before(async () => {
        t = await startTestApp(dialect, { rateLimits: { ...OFF, uploadBytes: { perSecond: 10_000, burst: 100_000 } } });
        await t.app.listen({ host: '127.0.0.1', port: 0 });
        base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      });
      after(async () => t?.close());

      /** POST /v1/tasks/import/check-images, its body sent chunked (no length known up front). */
      const chunked = (body: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = http.request(`${base}/v1/tasks/import/check-images`, {
            method: 'POST',
            headers: { 'x-api-key': t.key, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          });
          request.once('response', (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.once('end', () => resolve({ status: res.statusCode!, body: text }));
          });
          request.once('error', reject);
          for (let i = 0; i < body.length; i += 16_384) request.write(body.slice(i, i + 16_384));
          request.end();
        });

      test('is refused with 400, asking for the length; with Content-Length it passes', async () => {
        const body = JSON.stringify(Array.from({ length: 1500 }, () => randomBytes(32).toString('base64'))); // ~70 kB
        const refused = await chunked(body);
        assert.equal(refused.status, 400);
        assert.match(JSON.parse(refused.body).details.message, /send Content-Length/);
        const sized = await fetch(`${base}/v1/tasks/import/check-images`, { method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, body });
        assert.equal(sized.status, 200);
      });
    });

    describe('failed sign-ins per address', () => {
      let t: TestApp;
      before(async () => {
        t = await startTestApp(dialect, { trustProxy: true, rateLimits: { ...OFF, signInFailures: { perSecond: 1, burst: 5 } } });
      });
      after(async () => t?.close());

      const signIn = (key: string, from: string) =>
        t.request({ method: 'POST', url: '/v2/session', key: null, headers: { 'x-forwarded-for': from }, payload: { key } });

      test('wrong keys from one address: 401 up to the burst, then 429 with Retry-After; another address signs in', async () => {
        const wrong = `ak_${randomBytes(24).toString('base64url')}`;
        for (let i = 0; i < 5; i++) assert.equal((await signIn(wrong, '203.0.113.7')).statusCode, 401, `attempt ${i}`);
        const refused = await signIn(wrong, '203.0.113.7');
        const problem = assertProblem(refused, 429, 'RATE_LIMITED');
        assert.equal(problem.limit, 'sign-in');
        assert.equal(refused.headers['retry-after'], '1');
        assert.equal((await signIn(t.key, '203.0.113.7')).statusCode, 429, 'the address waits, whatever the key');
        assert.equal((await signIn(t.key, '198.51.100.2')).statusCode, 201, 'another address is not held up');
      });

      test('successful sign-ins do not use the bucket up', async () => {
        for (let i = 0; i < 12; i++) assert.equal((await signIn(t.key, '198.51.100.9')).statusCode, 201, `sign-in ${i}`);
      });
    });

    describe('failed sign-ins behind one trusted proxy (TRUST_PROXY=1)', () => {
      let t: TestApp;
      before(async () => {
        t = await startTestApp(dialect, { trustProxy: 1, rateLimits: { ...OFF, signInFailures: { perSecond: 1 / 60, burst: 10 } } });
      });
      after(async () => t?.close());

      test('a client cannot dodge the limit with made-up X-Forwarded-For entries: the proxy-seen address counts', async () => {
        const wrong = `ak_${randomBytes(24).toString('base64url')}`;
        // The proxy appends the address it saw (203.0.113.50) to whatever the client sent.
        const signIn = (spoofed: string) =>
          t.request({ method: 'POST', url: '/v2/session', key: null, headers: { 'x-forwarded-for': `${spoofed}, 203.0.113.50` }, payload: { key: wrong } });
        for (let i = 0; i < 10; i++) assert.equal((await signIn(`198.51.100.${i}`)).statusCode, 401, `attempt ${i}`);
        const refused = await signIn('198.51.100.99');
        assert.equal(assertProblem(refused, 429, 'RATE_LIMITED').limit, 'sign-in');
      });
    });

    describe('no limits set', () => {
      let t: TestApp;
      before(async () => {
        t = await startTestApp(dialect, { rateLimits: OFF });
      });
      after(async () => t?.close());

      test('many requests and wrong sign-ins are all answered as ever', async () => {
        const answers = await Promise.all(Array.from({ length: 60 }, () => t.request({ method: 'GET', url: '/v2/projects' })));
        assert.ok(answers.every((a) => a.statusCode === 200 && a.headers['retry-after'] === undefined));
        for (let i = 0; i < 20; i++) assert.equal((await t.request({ method: 'POST', url: '/v2/session', key: null, payload: { key: `ak_${'x'.repeat(32)}` } })).statusCode, 401);
      });
    });
  });
}
