// Broken requests on a real connection: a body shorter than its Content-Length, a chunked body that
// stops, a client that drops the connection in the middle of a file, bytes that are not HTTP. The
// server answers what it still can with the contract's body, logs no failure of its own, keeps
// nothing of the request, and goes on serving.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { uploadTempRoot } from '../../src/storage/upload-temp.ts';
import { type CapturedLog, captureLog } from '../helpers/captured-log.ts';
import { dialects } from '../helpers/dialects.ts';
import { hashOf } from '../helpers/factories.ts';
import { multipartBody, pngImage } from '../helpers/multipart.ts';
import { type RawConnection, chunk, connect, listeningPort, parseAnswer, requestHead, write } from '../helpers/raw-http.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';

const CATALOGUE = ['VALIDATION', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'RATE_LIMITED'];

/** An answer the client got, if any, is a 4xx with the contract's body. */
function assertClientError(text: string, what: string): void {
  const answer = parseAnswer(text);
  if (answer === null) return;
  assert.ok(answer.status >= 400 && answer.status < 500, `${what}: status ${answer.status}`);
  const body = JSON.parse(answer.body) as { error: string; details: { message: string } };
  assert.ok(CATALOGUE.includes(body.error), `${what}: ${answer.body}`);
  assert.equal(typeof body.details.message, 'string', what);
}

for (const dialect of dialects) {
  describe(`broken requests on a real connection, on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let log: CapturedLog;
    let port: number;
    let uploads: string;
    before(async () => {
      log = captureLog();
      t = await startTestApp(dialect, {}, { logger: log.logger });
      port = await listeningPort(t.app);
      uploads = uploadTempRoot(t.config);
    });
    after(async () => t?.close());

    const uploadFolderFiles = () => (fs.existsSync(uploads) ? fs.readdirSync(uploads).flatMap((dir) => fs.readdirSync(`${uploads}/${dir}`)) : []);
    const stagedRows = async () => (await t.ctx.db.kysely.selectFrom('staged_files').select('id').execute()).length;

    let uploadsAfter = 0;
    /** A whole upload of one new image over HTTP: the server still serves and still stores. */
    async function uploadStillWorks(): Promise<void> {
      uploadsAfter += 1;
      const seed = 1000 + uploadsAfter;
      const png = await pngImage(12, 12, seed);
      const form = new FormData();
      form.append('a', JSON.stringify({ id: `after-${seed}.png`, type: 'image', format: 'images' }));
      form.append('a-file', new Blob([png]), `after-${seed}.png`);
      const res = await fetch(`http://127.0.0.1:${port}/v1/tasks/import/files`, { method: 'POST', headers: { 'x-api-key': t.key }, body: form });
      assert.equal(res.status, 200, await res.clone().text());
      assert.deepEqual(await res.json(), [{ id: `after-${seed}.png`, hash: hashOf(png), errors: [] }]);
    }

    /**
     * Sends the head of an upload of one large image and the body up to the middle of the file, and
     * waits until the server is writing the file to its upload folder.
     */
    async function startUpload(options: { chunked: boolean }): Promise<{ connection: RawConnection; hash: string }> {
      const content = Buffer.alloc(4 * 1024 * 1024, 7);
      const body = multipartBody([{ key: 'a', metadata: { id: 'dropped.png', type: 'image', format: 'images' }, content }]);
      const half = body.payload.subarray(0, body.payload.indexOf(content) + content.length / 2);
      const connection = connect(port);
      const framing: Record<string, string | number> = options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': body.payload.length };
      await write(connection.socket, requestHead('POST', '/v1/tasks/import/files', { 'x-api-key': t.key, ...body.headers, ...framing }));
      await write(connection.socket, options.chunked ? chunk(half) : half);
      await waitFor('the server writing the file', () => uploadFolderFiles().length > 0);
      return { connection, hash: hashOf(content) };
    }

    for (const [cut, chunked, drop] of [
      ['a body shorter than its Content-Length, then the client ends the connection', false, 'end'],
      ['a chunked body that stops mid-way, then the client ends the connection', true, 'end'],
      ['a client that drops the connection in the middle of a file', false, 'destroy'],
      ['a client that drops the connection in the middle of a chunked file', true, 'destroy'],
    ] as const) {
      test(`upload: ${cut}: no failure logged, nothing kept, and the server goes on`, async () => {
        log.clear();
        const stagedBefore = await stagedRows();
        const { connection, hash } = await startUpload({ chunked });
        if (drop === 'end') connection.socket.end();
        else connection.socket.destroy();
        assertClientError(await connection.answer, cut);
        await waitFor('the upload folder to be removed', () => uploadFolderFiles().length === 0);
        await uploadStillWorks();
        assert.deepEqual(log.failures(), []);
        assert.equal(await stagedRows(), stagedBefore + 1, 'only the upload after it is staged');
        assert.equal(await t.ctx.blobs.has(hash), false);
        assert.equal(fs.readdirSync(uploads).length, 0, 'no upload folder is left');
      });
    }

    test('upload: a body that ends before its closing boundary, Content-Length and all, is 400 VALIDATION', async () => {
      log.clear();
      const png = await pngImage(20, 20, 31);
      const body = multipartBody([{ key: 'a', metadata: { id: 'cut.png', type: 'image', format: 'images' }, content: png }]);
      const cutBody = body.payload.subarray(0, body.payload.indexOf(png) + png.length);
      const connection = connect(port);
      await write(connection.socket, requestHead('POST', '/v1/tasks/import/files', { 'x-api-key': t.key, ...body.headers, 'content-length': cutBody.length, connection: 'close' }));
      await write(connection.socket, cutBody);
      const answer = parseAnswer(await connection.answer);
      assert.equal(answer?.status, 400);
      assert.equal((JSON.parse(answer.body) as { error: string }).error, 'VALIDATION');
      assert.match(answer.headers.deprecation ?? '', /^@\d+$/, 'a /v1 answer, with its deprecation headers');
      assert.equal(await t.ctx.blobs.has(hashOf(png)), false);
      assert.equal(fs.readdirSync(uploads).length, 0);
      assert.deepEqual(log.failures(), []);
    });

    for (const [cut, chunked] of [
      ['a JSON body shorter than its Content-Length', false],
      ['a chunked JSON body that stops mid-way', true],
    ] as const) {
      for (const drop of ['end', 'destroy'] as const) {
        test(`${cut}, then the client ${drop === 'end' ? 'ends' : 'drops'} the connection: no failure logged, and the server goes on`, async () => {
          log.clear();
          const json = JSON.stringify({ project: { id: null, title: 'never' }, preset: 0, files: [{ hash: hashOf(Buffer.from('x')), path: 'ds/x.png' }] });
          const half = json.slice(0, json.length / 2);
          const connection = connect(port);
          const framing: Record<string, string | number> = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': json.length };
          await write(connection.socket, requestHead('POST', '/v1/tasks/import', { 'x-api-key': t.key, 'content-type': 'application/json', ...framing }));
          await write(connection.socket, chunked ? chunk(half) : half);
          if (drop === 'end') connection.socket.end();
          else connection.socket.destroy();
          assertClientError(await connection.answer, cut);
          await uploadStillWorks();
          assert.deepEqual(log.failures(), []);
          // The uploads after it queue thumbnails of their images; the broken import queued nothing.
          assert.deepEqual(await t.ctx.db.kysely.selectFrom('tasks').select('id').where('type', '=', 'import').execute(), [], 'no import task was created');
        });
      }
    }

    test('bytes Node cannot read as HTTP are answered 400 with the contract body, and the server goes on', async () => {
      log.clear();
      const unreadable: Record<string, string | Buffer> = {
        'a header name with a space': 'GET /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nbad name: 1\r\n\r\n',
        'a request line that is not HTTP': 'HELLO\r\n\r\n',
        'headers larger than the server accepts': requestHead('GET', '/v1/projects', { 'x-api-key': t.key, 'x-filler': 'a'.repeat(20_000) }),
        'a chunk size that is not hexadecimal': `${requestHead('POST', '/v1/tasks/import', { 'x-api-key': t.key, 'content-type': 'application/json', 'transfer-encoding': 'chunked' })}zz\r\n{}\r\n0\r\n\r\n`,
        'both Content-Length and chunked framing': Buffer.concat([
          Buffer.from(requestHead('POST', '/v1/tasks/import', { 'x-api-key': t.key, 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'content-length': 2 })),
          chunk('{}'),
          Buffer.from('0\r\n\r\n'),
        ]),
      };
      for (const [what, bytes] of Object.entries(unreadable)) {
        const connection = connect(port);
        await write(connection.socket, bytes);
        const answer = parseAnswer(await connection.answer);
        assert.equal(answer?.status, 400, what);
        assert.equal(answer.headers['content-type'], 'application/json', what);
        assert.equal((JSON.parse(answer.body) as { error: string }).error, 'VALIDATION', what);
      }
      await uploadStillWorks();
      assert.deepEqual(log.failures(), []);
    });
  });
}
