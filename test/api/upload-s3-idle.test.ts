// POST /tasks/import/files on S3 (s3rver, with Node's idle timeout) after the store's connections have
// stood idle about as long as the server keeps them, so that uploads go out around the moment the
// server closes those connections. Several apps, each with connections of its own, upload side by
// side and each pauses a little differently, so some uploads meet the close. No upload may answer
// 5xx, and every blob reads back with the bytes that were sent.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { dialects } from '../helpers/dialects.ts';
import { hashOf } from '../helpers/factories.ts';
import { multipartBody, pngImage } from '../helpers/multipart.ts';
import { idleCloseMs, startS3 } from '../helpers/s3.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

/** Apps uploading side by side, alternately on each database. */
const APPS = 8;
/** Pauses each app makes, each followed by uploads. */
const PAUSES = 2;
/** Uploads each app sends at once, one image each, so each lands on a connection of its own. */
const UPLOADS = 8;
/**
 * A pause ends this much before the server would close the connections: an upload reaches its PUT
 * some milliseconds after the request starts. Spread over the apps and pauses, from −SPREAD_MS to 0.
 */
const SPREAD_MS = 120;

const usable = dialects.filter((d) => !d.skip);

test('uploads after S3 connections stood idle until the server closes them never answer 5xx; the bytes arrive whole', { timeout: 120_000 }, async () => {
  const s3 = await startS3();
  const apps: TestApp[] = [];
  try {
    const closing = idleCloseMs(s3.url); // measured while the apps start
    const started = await Promise.allSettled(Array.from({ length: APPS }, (_, i) => startTestApp(usable[i % usable.length]!, { storageUrl: s3.url })));
    for (const s of started) if (s.status === 'fulfilled') apps.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;

    let seed = 0;
    const sent = new Map<string, Buffer>();
    const wrong: string[] = [];
    const uploadBurst = async (t: TestApp): Promise<number> => {
      const images = await Promise.all(Array.from({ length: UPLOADS }, () => pngImage(24, 24, seed++)));
      await Promise.all(
        images.map(async (png) => {
          const body = multipartBody([{ key: 'i', metadata: { id: 'idle.png', type: 'image', format: 'images' }, content: png }]);
          const answer = await t.request({ method: 'POST', url: '/v1/tasks/import/files', ...body });
          sent.set(hashOf(png), png);
          const expected = [{ id: 'idle.png', hash: hashOf(png), errors: [] }];
          if (answer.statusCode !== 200 || !isDeepStrictEqual(JSON.parse(answer.body), expected)) wrong.push(`${answer.statusCode} ${answer.body}`);
        }),
      );
      return Date.now();
    };

    const closeMs = await closing;
    await Promise.all(
      apps.map(async (t, a) => {
        let idleSince = await uploadBurst(t); // opens the app's connections
        for (let p = 0; p < PAUSES; p += 1) {
          const early = (SPREAD_MS * (p * APPS + a)) / (APPS * PAUSES - 1);
          await sleep(Math.max(0, idleSince + closeMs - early - Date.now()));
          idleSince = await uploadBurst(t);
        }
      }),
    );

    assert.deepEqual(wrong, [], `s3rver closes an idle connection after ${closeMs} ms`);
    assert.equal(sent.size, APPS * (PAUSES + 1) * UPLOADS);
    for (const [hash, bytes] of sent) assert.ok((await apps[0]!.ctx.blobs.readBytes(hash)).equals(bytes), `blob ${hash} reads back as sent`);
  } finally {
    for (const t of apps) await t.close();
    await s3.stop();
  }
});
