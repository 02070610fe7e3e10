// The typed client and `annostore import` against a server whose limits are set low: a 429 is
// waited out for as long as its Retry-After says (past the policy's maxDelayMs), the calls succeed,
// and a Retry-After longer than the client waits fails at once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { PassThrough } from 'node:stream';
import { AnnostoreClient, ApiError, DEFAULT_RETRY } from '../../src/client/index.ts';
import type { RetryNotice } from '../../src/client/client.ts';
import { type ImportSummary, importFolder } from '../../src/client/import-folder.ts';
import { createProgress } from '../../src/client/progress.ts';
import type { Config, RateLimitSettings } from '../../src/config.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { type ServerProcess, runImport, startServerProcess } from '../helpers/server-process.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';
import { startImportRunner } from '../helpers/importing.ts';
import type { TaskRunner } from '../../src/tasks/runner.ts';

const OFF: RateLimitSettings = { requests: null, uploadBytes: null, signInFailures: null, store: 'auto' };
const sqlite = dialects[0]!;

async function listening(overrides: RateLimitSettings): Promise<{ t: TestApp; url: string }> {
  const t = await startTestApp(sqlite, { rateLimits: overrides });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

describe('the typed client under a request limit', () => {
  let server: { t: TestApp; url: string };
  before(async () => {
    server = await listening({ ...OFF, requests: { perSecond: 1, burst: 2 } });
  });
  after(async () => server?.t.close());

  test('v1 and v2 calls past the burst wait for Retry-After (longer than maxDelayMs) and succeed', async () => {
    const notices: RetryNotice[] = [];
    // A backoff of at most 50 ms: only Retry-After can make the client wait a second.
    const client = new AnnostoreClient({ url: server.url, key: server.t.key, retries: { retries: 2, baseDelayMs: 10, maxDelayMs: 50 }, onRetry: (n) => notices.push(n) });
    const started = Date.now();
    await client.listProjects();
    await client.v2.projects.list();
    assert.equal(notices.length, 0, 'the burst passes at once');
    await client.listProjects();
    const created = await client.v2.projects.create({ title: 'limited' });
    const elapsed = Date.now() - started;
    assert.equal(created.value.title, 'limited', 'a create (not idempotent) is sent again after a 429: the server did not act on it');
    assert.ok(notices.length >= 2, JSON.stringify(notices));
    for (const notice of notices) {
      assert.match(notice.reason, /429 \(Retry-After: 1 s\)/);
      assert.ok(notice.delayMs >= 1000 && notice.delayMs <= 1100, `waited ${notice.delayMs} ms: Retry-After and at most a tenth more`);
    }
    assert.ok(elapsed >= 1900, `two tokens at one a second: ${elapsed} ms`);
  });

  test('a Retry-After longer than the client waits (maxRetryAfterMs) fails at once with the 429', async () => {
    const slow = await listening({ ...OFF, requests: { perSecond: 0.1, burst: 1 } });
    try {
      const client = new AnnostoreClient({ url: slow.url, key: slow.t.key, retries: { retries: 3, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 5000 } });
      await client.listProjects();
      const started = Date.now();
      const error = await client.listProjects().catch((e: unknown) => e);
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.status, 429);
      assert.equal(error.code, 'RATE_LIMITED');
      assert.ok(Date.now() - started < 1000, 'no retry that would be refused again');
    } finally {
      await slow.t.close();
    }
  });
});

describe('annostore import under an upload-bytes limit', () => {
  const KEY = 'ak_rate-limit-import-test-key-01234567';
  let config: Config;
  let server: ServerProcess;
  let work: string;
  before(async () => {
    config = sqlite.freshConfig();
    work = tempDir('rate-limit-import');
    // `annostore serve` as an operator runs it, the limit set by its environment.
    server = await startServerProcess({
      DATA_DIR: config.dataDir,
      ANNOSTORE_API_KEY: KEY,
      TASK_POLL_MS: '50',
      RATE_LIMIT_UPLOAD_BYTES_PER_SECOND: '100000',
      RATE_LIMIT_UPLOAD_BURST_BYTES: '60000',
    });
  });
  after(async () => {
    await server?.kill();
    await sqlite.cleanup(config);
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('uploads refused for their bytes are sent again after Retry-After; the import finishes', { timeout: 120_000 }, async () => {
    const dir = path.join(work, 'noise');
    fs.mkdirSync(dir);
    let total = 0;
    for (let i = 0; i < 6; i++) {
      const png = await sharp(randomBytes(100 * 100 * 3), { raw: { width: 100, height: 100, channels: 3 } }).png().toBuffer();
      total += png.length;
      fs.writeFileSync(path.join(dir, `n${i}.png`), png);
    }
    assert.ok(total > 150_000, `${total} bytes: well past the burst`);
    const started = Date.now();
    const run = await runImport([dir, '--url', server.url, '--key', KEY, '--json', '--batch-files', '1', '--concurrency', '2']);
    const elapsed = Date.now() - started;
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop()!) as ImportSummary;
    assert.equal(summary.status, 'finished');
    assert.equal(summary.imagesUploaded, 6);
    const waits = run.stderr.match(/answered 429 \(Retry-After: \d+ s\)/g) ?? [];
    assert.ok(waits.length >= 1, run.stderr);
    // What goes past the burst at 100 kB/s.
    assert.ok(elapsed >= ((total - 60_000) / 100_000) * 1000, `${elapsed} ms`);
  });
});

describe('an import under a low upload-bytes limit (200 kB/s, burst 400 kB)', () => {
  let server: { t: TestApp; url: string };
  let runner: TaskRunner;
  let work: string;
  before(async () => {
    server = await listening({ ...OFF, uploadBytes: { perSecond: 200_000, burst: 400_000 } });
    runner = startImportRunner(server.t);
    work = tempDir('rate-limit-batches');
  });
  after(async () => {
    await runner?.stop();
    await server?.t.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('the server announces its bytes burst and the import keeps each upload within it, so no wait is past what the client waits out', { timeout: 120_000 }, async () => {
    const dir = path.join(work, 'noise');
    fs.mkdirSync(dir);
    let total = 0;
    for (let i = 0; i < 20; i++) {
      const png = await sharp(randomBytes(180 * 180 * 3), { raw: { width: 180, height: 180, channels: 3 } }).png().toBuffer();
      total += png.length;
      fs.writeFileSync(path.join(dir, `n${i}.png`), png);
    }
    assert.ok(total > 1_900_000, `${total} bytes`);
    const notices: RetryNotice[] = [];
    // Waits of up to 2 s only (what a full burst takes to come back): batches of 10 files (about
    // 1 MB, past the burst) would leave a debt that later requests are told to wait out for longer,
    // and the import would fail, as it does with 32 MiB batches under any limit below ~0.55 MB/s.
    const client = new AnnostoreClient({ url: server.url, key: server.t.key, retries: { ...DEFAULT_RETRY, maxRetryAfterMs: 2000 }, onRetry: (n) => notices.push(n) });
    const started = Date.now();
    const summary = await importFolder(client, { dir, batchFiles: 10, concurrency: 2, pollMs: 50, progress: createProgress(new PassThrough(), { quiet: true }) });
    const elapsed = Date.now() - started;
    assert.equal(summary.status, 'finished');
    assert.equal(summary.imagesUploaded, 20);
    assert.equal(client.uploadBurstBytes, 400_000);
    assert.ok(notices.length >= 1, 'uploads waited for the limit');
    // What goes past the burst at 200 kB/s.
    assert.ok(elapsed >= ((total - 400_000) / 200_000) * 1000, `${elapsed} ms`);
  });
});
