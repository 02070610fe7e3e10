// A refusal made of a library's failure answers in our words: the decoder's or zlib's own message is
// written to the log, never sent to the client.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CapturedLog, captureLog } from '../helpers/captured-log.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

/** Words of sharp (libvips, libpng) and of zlib. */
const LIBRARY_WORDS = /vips|libpng|png read|Input buffer|unsupported image format|header check|zlib:|inflate/i;

for (const dialect of dialects) {
  describe(`library messages stay in the log (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let log: CapturedLog;
    let projectId: number;
    let datasetId: number;

    before(async () => {
      log = captureLog();
      t = await startTestApp(dialect, {}, { logger: log.logger });
      projectId = await newProject(t.ctx, { title: 'libraries', classes: [{ title: 'sky', shape: 'bitmap' }] });
      datasetId = await newDataset(t.ctx, projectId);
    });
    after(async () => t?.close());

    test('the thumbnail of a PNG cut short: 415 in our words; the decoder’s words are logged', async () => {
      const whole = await picture(64, 48);
      const image = await newImage(t.ctx, datasetId, { bytes: whole.subarray(0, Math.floor(whole.length * 0.6)) });
      log.clear();
      const res = await t.request({ method: 'GET', url: `/v2/images/${image.id}/thumbnail` });
      assert.equal(res.statusCode, 415, res.body);
      const problem = json<Record<string, unknown>>(res);
      assert.equal(problem.detail, 'the image cannot be decoded to make a thumbnail');
      assert.doesNotMatch(res.body, LIBRARY_WORDS);
      const logged = log.lines.find((line) => line.msg === 'the image cannot be decoded to make a thumbnail');
      assert.match(logged?.err?.message ?? '', LIBRARY_WORDS, JSON.stringify(log.lines));
    });

    test('a bitmap whose data is not zlib: 400 in our words', async () => {
      const data = Buffer.from('certainly not deflated').toString('base64');
      const res = await t.request({
        method: 'PUT',
        url: `/v2/images/${(await newImage(t.ctx, datasetId)).id}/annotation`,
        payload: { description: '', tags: [], objects: [{ classTitle: 'sky', bitmap: { origin: [0, 0], data } }] },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(json<{ detail: string }>(res).detail, /bitmap data is not valid zlib-compressed data/);
      assert.doesNotMatch(res.body, LIBRARY_WORDS);
    });
  });
}
