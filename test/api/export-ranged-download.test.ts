// A 10,000-image export downloaded whole and as two byte ranges split at an odd offset: the parts
// reassemble to the same bytes, each with the headers a resuming client relies on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { type SeededImage, seedProject } from '../helpers/export-seed.ts';
import type { TaskBody } from '../helpers/importing.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const IMAGES = 10_000;
const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const sqlite = dialects.find((d) => d.name === 'sqlite')!;

describe('a 10,000-image export in two ranged requests', () => {
  let t: TestApp;
  let runner: TaskRunner;
  let projectId: number;
  let images: SeededImage[];

  before(async () => {
    t = await startTestApp(sqlite);
    ({ projectId, images } = await seedProject(t.ctx, { team: 'alpha', title: 'ten thousand', images: IMAGES, blobs: 64, blobBytes: 200, datasets: 2 }));
    runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
  });
  after(async () => {
    await runner?.stop();
    await t?.close();
  });

  test('reassembles to the archive, byte for byte, with every image in it', { timeout: 120_000 }, async () => {
    const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'coco', options: { includeImages: true } } });
    assert.equal(res.statusCode, 201, res.body);
    const id = json<{ task: TaskBody }>(res).task.id;
    const deadline = Date.now() + 90_000;
    let task: TaskBody;
    for (;;) {
      task = json<{ task: TaskBody }>(await t.request({ method: 'GET', url: `/v2/exports/${id}` })).task;
      if (['finished', 'error', 'stopped'].includes(task.status)) break;
      assert.ok(Date.now() < deadline, `export still ${task.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(task.status, 'finished', JSON.stringify(task.meta));

    const url = `/v2/exports/${id}/archive`;
    const whole = await t.request({ method: 'GET', url });
    assert.equal(whole.statusCode, 200);
    const bytes = whole.rawPayload;
    const size = bytes.length;
    const etag = whole.headers.etag;
    assert.ok(etag);
    assert.equal(Number(whole.headers['content-length']), size);

    // Split at an odd offset near the middle, so neither part is a multiple of any block size.
    const split = Math.floor(size / 2) | 1;
    const first = await t.request({ method: 'GET', url, headers: { range: `bytes=0-${split - 1}` } });
    // The second part as a resuming client asks for it: only if the archive is still the same one.
    const second = await t.request({ method: 'GET', url, headers: { range: `bytes=${split}-`, 'if-range': etag as string } });
    assert.equal(first.statusCode, 206);
    assert.equal(second.statusCode, 206);
    assert.equal(first.headers['content-range'], `bytes 0-${split - 1}/${size}`);
    assert.equal(second.headers['content-range'], `bytes ${split}-${size - 1}/${size}`);
    assert.equal(Number(first.headers['content-length']), split);
    assert.equal(Number(second.headers['content-length']), size - split);
    assert.equal(first.headers.etag, etag);
    assert.equal(second.headers.etag, etag);
    assert.equal(first.rawPayload.length, split);
    assert.equal(second.rawPayload.length, size - split);
    const joined = Buffer.concat([first.rawPayload, second.rawPayload]);
    assert.ok(joined.equals(bytes), 'the two parts are the archive');
    assert.equal(sha256(joined), sha256(bytes));

    // The reassembled archive is whole (every CRC checks) and holds every image under its name.
    const dir = scratchDir('ranged');
    const file = path.join(dir, 'joined.zip');
    fs.writeFileSync(file, joined);
    execFileSync('unzip', ['-tq', file]);
    const entries = execFileSync('unzip', ['-Z1', file], { maxBuffer: 64 * 1024 * 1024 }).toString().split('\n').filter(Boolean);
    const imageEntries = entries.filter((e) => e.startsWith('images/')).sort();
    assert.deepEqual(imageEntries, images.map((i) => `images/${i.dataset}/${i.name}`).sort());
    assert.deepEqual(entries.filter((e) => !e.startsWith('images/')).sort(), ['annotations/instances_part-1.json', 'annotations/instances_part-2.json']);
  });
});
