// One file over the per-request limit is the same 413 on every upload route: v1's and v2's import
// uploads and v2's image upload, whichever way the parts come (metadata first, files first).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newProject } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const LIMIT = 100;
const MESSAGE = `at most ${LIMIT} files per request`;

/** An import upload of `count` files: each a metadata part and a file part, or all file parts first. */
function importUpload(count: number, filesFirst: boolean): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----annostore${randomBytes(8).toString('hex')}`;
  const metadata = (i: number) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${JSON.stringify({ id: `f${i}.png`, type: 'image', format: 'images' })}\r\n`;
  const file = (i: number) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}-file"; filename="f${i}.png"\r\nContent-Type: application/octet-stream\r\n\r\nx${i}\r\n`;
  const indices = Array.from({ length: count }, (_, i) => i);
  const parts = filesFirst ? [...indices.map(file), ...indices.map(metadata)] : indices.map((i) => metadata(i) + file(i));
  return { payload: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** An image upload of `count` file parts. */
function imageUpload(count: number): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----annostore${randomBytes(8).toString('hex')}`;
  const parts = Array.from({ length: count }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="i${i}.png"\r\nContent-Type: image/png\r\n\r\nx${i}\r\n`);
  return { payload: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

for (const dialect of dialects) {
  describe(`${LIMIT + 1} files to an upload route (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let datasetId: number;

    before(async () => {
      t = await startTestApp(dialect);
      datasetId = await newDataset(t.ctx, await newProject(t.ctx, { title: 'uploads' }));
    });
    after(async () => t?.close());

    test('is one 413 shape on every route, with the limit', async () => {
      const cases = [
        { url: '/v1/tasks/import/files', body: importUpload(LIMIT + 1, false) },
        { url: '/v1/tasks/import/files', body: importUpload(LIMIT + 1, true) },
        { url: '/v2/imports/files', body: importUpload(LIMIT + 1, false) },
        { url: '/v2/imports/files', body: importUpload(LIMIT + 1, true) },
        { url: `/v2/datasets/${datasetId}/images`, body: imageUpload(LIMIT + 1) },
      ];
      for (const [i, { url, body }] of cases.entries()) {
        const res = await t.request({ method: 'POST', url, payload: body.payload, headers: body.headers });
        const label = `case ${i}, ${url}: ${res.body}`;
        assert.equal(res.statusCode, 413, label);
        if (url.startsWith('/v1/')) {
          assert.deepEqual(json(res), { error: 'PAYLOAD_TOO_LARGE', details: { message: MESSAGE, limit: LIMIT } }, label);
        } else {
          const problem = json<Record<string, unknown>>(res);
          assert.deepEqual(
            { code: problem.code, status: problem.status, detail: problem.detail, limit: problem.limit },
            { code: 'PAYLOAD_TOO_LARGE', status: 413, detail: MESSAGE, limit: LIMIT },
            label,
          );
        }
      }
    });

    test(`${LIMIT} files are taken`, async () => {
      const res = await t.request({ method: 'POST', url: '/v2/imports/files', ...importUpload(LIMIT, true) });
      assert.equal(res.statusCode, 200, res.body);
    });
  });
}
