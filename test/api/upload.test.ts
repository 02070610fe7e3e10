// POST /tasks/import/check-images and POST /tasks/import/files, on both databases.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { type StoreSetup, storeCases } from '../helpers/s3.ts';
import { type CapturedLog, captureLog } from '../helpers/captured-log.ts';
import { hashOf } from '../helpers/factories.ts';
import { multipartBody, pngImage, type UploadPart } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Result {
  id: string;
  fileId?: string;
  hash?: string;
  errors: { code: string; message: string }[];
}

/** A PNG whose header claims `width`×`height` pixels, with almost no pixel data behind it. */
function bombPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const dialect of dialects) {
  for (const store of storeCases) describe(`upload on ${dialect.name} with the ${store.name} store`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let storage: StoreSetup;
    let log: CapturedLog;
    before(async () => {
      storage = await store.setup();
      log = captureLog();
      t = await startTestApp(dialect, storage.overrides, { logger: log.logger });
    });
    after(async () => {
      await t?.close();
      await storage?.cleanup();
    });

    const upload = async (parts: UploadPart[], key?: string) => {
      const body = multipartBody(parts);
      return t.request({ method: 'POST', url: '/v1/tasks/import/files', ...body, ...(key ? { key } : {}) });
    };

    test('an image is stored, answers its hash, and check-images then knows it for this team only', async () => {
      const png = await pngImage(40, 30, 1);
      const hash = hashOf(png);
      const before = json<string[]>(await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: [hash] }));
      assert.deepEqual(before, [hash]);
      const res = await upload([{ key: 'a', metadata: { id: 'ds/img/a.png', hash, type: 'image', format: 'supervisely' }, content: png }]);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json<Result[]>(res), [{ id: 'ds/img/a.png', hash, errors: [] }]);
      assert.deepEqual(json(await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: [hash] })), []);
      // Another team does not see it.
      assert.deepEqual(
        json(await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: [hash], key: t.otherKey })),
        [hash],
      );
      // The bytes are stored under their hash, unchanged.
      assert.deepEqual(await t.ctx.blobs.readBytes(hash), png);
      const blob = await t.ctx.db.kysely.selectFrom('blobs').selectAll().where('hash', '=', hash).executeTakeFirstOrThrow();
      assert.equal(blob.width, 40);
      assert.equal(blob.height, 30);
      assert.equal(blob.media_type, 'image/png');
    });

    test('a known hash needs no content; without content an unknown hash is MISSING_CONTENT', async () => {
      const png = await pngImage(8, 8, 2);
      const hash = hashOf(png);
      await upload([{ key: 'k', metadata: { id: 'x.png', hash, type: 'image', format: 'images' }, content: png }]);
      const res = await upload([
        { key: 'k1', metadata: { id: 'again.png', hash, type: 'image', format: 'images' } },
        { key: 'k2', metadata: { id: 'unknown.png', hash: hashOf(Buffer.from('nothing')), type: 'image', format: 'images' } },
      ]);
      assert.deepEqual(json<Result[]>(res), [
        { id: 'again.png', hash, errors: [] },
        { id: 'unknown.png', errors: [{ code: 'MISSING_CONTENT', message: json<Result[]>(res)[1]!.errors[0]!.message }] },
      ]);
      // The other team cannot use this team's hash without sending the bytes.
      const theirs = json<Result[]>(await upload([{ key: 'k', metadata: { id: 'x.png', hash, type: 'image', format: 'images' } }], t.otherKey));
      assert.equal(theirs[0]!.errors[0]!.code, 'MISSING_CONTENT');
    });

    test('each bad file gets its own error code and is not stored; the good ones are', async () => {
      const good = await pngImage(10, 10, 3);
      const mismatched = await pngImage(10, 10, 4);
      const results = json<Result[]>(
        await upload([
          { key: 'a', metadata: { id: 'good.png', type: 'image', format: 'SUPERVISELY' }, content: good },
          { key: 'b', metadata: { id: 'bad-hash.png', hash: 'not-a-hash', type: 'image', format: 'images' }, content: good },
          { key: 'c', metadata: { id: 'mismatch.png', hash: hashOf(good), type: 'image', format: 'images' }, content: mismatched },
          { key: 'd', metadata: { id: 'good.png', type: 'image', format: 'images' }, content: good },
          { key: 'e', metadata: { id: 'video.mp4', type: 'video', format: 'images' }, content: good },
          { key: 'f', metadata: { id: 'x.png', type: 'image', format: 'cvat' }, content: good },
          { key: 'g', metadata: { id: 'text.png', type: 'image', format: 'images' }, content: Buffer.from('hello, not an image') },
          { key: 'h', metadata: { id: 'ds/ann/a.png.json', type: 'annotation', format: 'supervisely' }, content: Buffer.from('{broken') },
          { key: 'i', metadata: { id: 'bomb.png', type: 'image', format: 'images' }, content: bombPng(30000, 30000) },
        ]),
      );
      assert.deepEqual(
        results.map((r) => [r.id, r.errors.map((e) => e.code)]),
        [
          ['good.png', []],
          ['bad-hash.png', ['INVALID_HASH']],
          ['mismatch.png', ['HASH_MISMATCH']],
          ['good.png', ['DUPLICATE_ID']],
          ['video.mp4', ['UNSUPPORTED_TYPE']],
          ['x.png', ['UNSUPPORTED_FORMAT']],
          ['text.png', ['INVALID_CONTENT']],
          ['ds/ann/a.png.json', ['INVALID_CONTENT']],
          ['bomb.png', ['TOO_LARGE']],
        ],
      );
      for (const r of results) for (const e of r.errors) assert.ok(e.message.length > 0);
      assert.equal(results[0]!.hash, hashOf(good));
      const stored = await t.ctx.db.kysely.selectFrom('blobs').select('hash').where('hash', '=', hashOf(mismatched)).execute();
      assert.equal(stored.length, 0, 'a file with errors is not stored');
      assert.equal(await t.ctx.blobs.has(hashOf(mismatched)), false);
    });

    test('annotation and class files answer an opaque fileId', async () => {
      const ann = Buffer.from(JSON.stringify({ description: '', tags: [], size: { width: 10, height: 10 }, objects: [] }));
      const meta = Buffer.from(JSON.stringify({ classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }] }));
      const results = json<Result[]>(
        await upload([
          { key: 'm', metadata: { id: 'meta.json', type: 'class', format: 'supervisely' }, content: meta },
          { key: 'a', metadata: { id: 'ds/ann/a.png.json', type: 'annotation', format: 'supervisely' }, content: ann },
        ]),
      );
      assert.equal(results.length, 2);
      for (const r of results) {
        assert.deepEqual(r.errors, []);
        assert.match(r.fileId ?? '', /^[A-Za-z0-9_-]{8,}$/);
      }
      assert.notEqual(results[0]!.fileId, results[1]!.fileId);
    });

    test('a metadata part sent as application/json is read like any other', async () => {
      const ann = Buffer.from(JSON.stringify({ images: [], annotations: [], categories: [] }));
      const res = await upload([{ key: 'c', metadata: { id: 'coco.json', type: 'annotation', format: 'coco' }, metadataType: 'application/json', content: ann }]);
      assert.equal(res.statusCode, 200, res.body);
      const [result] = json<Result[]>(res);
      assert.deepEqual(result!.errors, []);
      assert.match(result!.fileId ?? '', /^[A-Za-z0-9_-]{8,}$/);
    });

    test('more than 100 files is 413 and nothing is stored', async () => {
      const parts: UploadPart[] = [];
      for (let i = 0; i < 101; i += 1) {
        parts.push({ key: `k${i}`, metadata: { id: `f${i}.json`, type: 'annotation', format: 'coco' }, content: Buffer.from(`{"n": ${i}}`) });
      }
      const before = await t.ctx.db.kysely.selectFrom('staged_files').select('id').execute();
      const res = await upload(parts);
      assert.equal(res.statusCode, 413);
      assert.equal(json<{ error: string }>(res).error, 'PAYLOAD_TOO_LARGE');
      const afterRows = await t.ctx.db.kysely.selectFrom('staged_files').select('id').execute();
      assert.equal(afterRows.length, before.length);
      const leftovers = fs.readdirSync(path.join(t.config.dataDir, 'tmp', 'uploads'));
      assert.deepEqual(leftovers, [], 'temporary files are removed');
    });

    test('a file over the size limit is TOO_LARGE', async () => {
      const small = await startTestApp(dialect, { ...storage.overrides, limits: { ...t.config.limits, uploadFileBytes: 1000 } });
      try {
        const body = multipartBody([{ key: 'a', metadata: { id: 'big.png', type: 'image', format: 'images' }, content: await pngImage(200, 200, 9) }]);
        const res = await small.request({ method: 'POST', url: '/v1/tasks/import/files', ...body });
        assert.equal(json<Result[]>(res)[0]!.errors[0]!.code, 'TOO_LARGE');
      } finally {
        await small.close();
      }
    });

    test('a malformed metadata part is a 400 (an id with a NUL too); a request that is not multipart is 415', async () => {
      const res = await upload([{ key: 'a', metadata: '{not json' }]);
      assert.equal(res.statusCode, 400);
      assert.equal(json<{ error: string }>(res).error, 'VALIDATION');
      const unknownMember = await upload([{ key: 'a', metadata: { id: 'a', type: 'image', format: 'images', admin: true } }]);
      assert.equal(unknownMember.statusCode, 400);
      const stagedBefore = await t.ctx.db.kysely.selectFrom('staged_files').select('id').execute();
      const nul = await upload([{ key: 'a', metadata: { id: 'ann\u0000.json', type: 'annotation', format: 'coco' }, content: Buffer.from('{"nul": 1}') }]);
      assert.equal(nul.statusCode, 400);
      assert.equal(json<{ error: string; details: { field: string } }>(nul).details.field, 'a');
      assert.deepEqual(await t.ctx.db.kysely.selectFrom('staged_files').select('id').execute(), stagedBefore);
      const notMultipart = await t.request({ method: 'POST', url: '/v1/tasks/import/files', payload: { id: 1 } });
      assert.equal(notMultipart.statusCode, 415);
    });

    test('a multipart body cut short or malformed is 400 VALIDATION: nothing is stored and no failure is logged', async () => {
      log.clear();
      const png = await pngImage(30, 20, 11);
      const whole = multipartBody([{ key: 'a', metadata: { id: 'cut.png', type: 'image', format: 'images' }, content: png }]);
      const contentType = whole.headers['content-type']!;
      const closing = `--${contentType.split('boundary=')[1]}--\r\n`;
      const fileStart = whole.payload.indexOf(png);
      const bodies: Record<string, { payload: Buffer; contentType: string }> = {
        'ends in the middle of a file': { payload: whole.payload.subarray(0, fileStart + png.length / 2), contentType },
        'ends before its closing boundary': { payload: whole.payload.subarray(0, whole.payload.length - closing.length), contentType },
        'is not multipart at all': { payload: Buffer.from('hello, not a form'), contentType },
        'has a Content-Type without a boundary': { payload: whole.payload, contentType: 'multipart/form-data' },
        'has an empty boundary': { payload: whole.payload, contentType: 'multipart/form-data; boundary=' },
        'has a boundary longer than multipart allows': { payload: whole.payload, contentType: `multipart/form-data; boundary=${'b'.repeat(300)}` },
      };
      const staged = async () => (await t.ctx.db.kysely.selectFrom('staged_files').select('id').execute()).length;
      const stagedBefore = await staged();
      for (const [what, body] of Object.entries(bodies)) {
        const res = await t.request({ method: 'POST', url: '/v1/tasks/import/files', payload: body.payload, headers: { 'content-type': body.contentType } });
        assert.equal(res.statusCode, 400, `a body that ${what}: ${res.body}`);
        const answer = json<{ error: string; details: { message: string } }>(res);
        assert.equal(answer.error, 'VALIDATION', what);
        assert.ok(answer.details.message.length > 0, what);
      }
      assert.equal(await staged(), stagedBefore);
      assert.equal(await t.ctx.blobs.has(hashOf(png)), false);
      assert.deepEqual(fs.readdirSync(path.join(t.config.dataDir, 'tmp', 'uploads')), [], 'temporary files are removed');
      assert.deepEqual(log.failures(), []);
    });

    test('check-images: input order, no repeats, malformed hash 400, over 10,000 is 400', async () => {
      const a = hashOf(Buffer.from('a'));
      const b = hashOf(Buffer.from('b'));
      assert.deepEqual(json(await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: [b, a, b] })), [b, a]);
      const bad = await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: [a, 'abc'] });
      assert.equal(bad.statusCode, 400);
      assert.equal(json<{ error: string }>(bad).error, 'VALIDATION');
      const tooMany = await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: new Array(10_001).fill(a) });
      assert.equal(tooMany.statusCode, 400);
      const notArray = await t.request({ method: 'POST', url: '/v1/tasks/import/check-images', payload: { hashes: [a] } });
      assert.equal(notArray.statusCode, 400);
    });

    test('a read-only key cannot upload', async () => {
      const res = await upload([{ key: 'a', metadata: { id: 'a.png', type: 'image', format: 'images' }, content: await pngImage(4, 4, 5) }], t.readOnlyKey);
      assert.equal(res.statusCode, 403);
    });
  });
}
