// A large annotation file in POST /tasks/import/files does not stop the server's other requests: its
// parse runs on an annotation thread. Real sockets, and the server in this process, so a parse on its
// event loop would hold up the /healthz answers the test waits for.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { multipartBody } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Result {
  id: string;
  fileId?: string;
  errors: { code: string; message: string }[];
}

/** A Supervisely annotation of at least `bytes` bytes: polygons of 20 points. */
function bigAnnotation(bytes: number): Buffer {
  const objects: string[] = [];
  let size = 0;
  for (let k = 0; size < bytes; k += 1) {
    const points = Array.from({ length: 20 }, (_, p) => `[${(k * 7 + p * 13) % 4000}.${p},${(k * 11 + p * 17) % 3000}.5]`);
    const object = `{"classTitle":"car","geometryType":"polygon","tags":[],"description":"","points":{"exterior":[${points.join(',')}],"interior":[]}}`;
    objects.push(object);
    size += object.length + 1;
  }
  return Buffer.from(`{"description":"","tags":[],"size":{"width":4000,"height":3000},"objects":[${objects.join(',')}]}`);
}

/** What JSON.parse says of `bytes`, and how long it took on this thread. */
function parseInline(bytes: Buffer): { ms: number; message: string | null } {
  const start = performance.now();
  let message: string | null = null;
  try {
    JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    message = (error as Error).message;
  }
  return { ms: performance.now() - start, message };
}

/** Sends a multipart body a slice at a time, as a client on a network would; answers status and body. */
function postStreamed(url: string, key: string, body: { payload: Buffer; headers: Record<string, string> }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/v1/tasks/import/files`,
      { method: 'POST', headers: { ...body.headers, 'x-api-key': key, 'content-length': String(body.payload.length) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    const slice = 1024 * 1024;
    let at = 0;
    const write = () => {
      while (at < body.payload.length) {
        const piece = body.payload.subarray(at, at + slice);
        at += piece.length;
        if (!request.write(piece)) {
          request.once('drain', write);
          return;
        }
      }
      request.end();
    };
    write();
  });
}

/** Asks for /healthz one request after another until stopped; answers the longest wait for an answer. */
function pollHealth(url: string): { stop(): Promise<{ answers: number; longestMs: number }> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let stopped = false;
  let answers = 0;
  let longestMs = 0;
  const ask = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(`${url}/healthz`, { agent }, (response) => {
          response.resume();
          response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`/healthz answered ${response.statusCode}`))));
        })
        .on('error', reject);
    });
  const loop = (async () => {
    while (!stopped) {
      const start = performance.now();
      await ask();
      answers += 1;
      longestMs = Math.max(longestMs, performance.now() - start);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      agent.destroy();
      return { answers, longestMs };
    },
  };
}

const hashOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

for (const dialect of dialects) {
  describe(`a large annotation upload on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(dialect);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    after(async () => t?.close());

    test('/healthz keeps answering while a 26 MB annotation is checked', async (context) => {
      const content = bigAnnotation(26_000_000);
      // What the check costs on the thread that answers requests: a server that parsed there would
      // keep a /healthz waiting at least this long.
      const inline = parseInline(content);
      assert.equal(inline.message, null);
      const body = multipartBody([{ key: 'a', metadata: { id: 'ds/ann/a.png.json', hash: hashOf(content), type: 'annotation', format: 'supervisely' }, content }]);

      const health = pollHealth(url);
      const answer = await postStreamed(url, t.key, body);
      const { answers, longestMs } = await health.stop();

      context.diagnostic(`parse here ${inline.ms.toFixed(0)} ms; longest /healthz wait ${longestMs.toFixed(0)} ms over ${answers} answers`);
      assert.equal(answer.status, 200, answer.text);
      const [result] = JSON.parse(answer.text) as Result[];
      assert.deepEqual(result!.errors, []);
      assert.ok(result!.fileId);
      assert.ok(answers > 10, `/healthz answered ${answers} times during the upload`);
      // The parse itself, on this thread, would make the longest wait at least inline.ms; half of it
      // leaves room for a loaded machine's pauses and still fails when the parse is here.
      assert.ok(longestMs < inline.ms / 2, `a /healthz waited ${longestMs.toFixed(0)} ms; the parse takes ${inline.ms.toFixed(0)} ms here`);
    });

    test('a large file checked on a thread is refused as it would be here, with the same message', async () => {
      const good = bigAnnotation(1_000_000);
      const broken = good.subarray(0, good.length - 3);
      const noObjects = Buffer.from(`{"size":{"width":2,"height":2},"padding":"${'x'.repeat(200_000)}"}`);
      const classes = Buffer.from(JSON.stringify({ classes: Array.from({ length: 5000 }, (_, k) => ({ title: `class ${k}`, shape: 'polygon', color: '#FF0000' })) }));
      const notClasses = Buffer.from(JSON.stringify({ classez: Array.from({ length: 5000 }, (_, k) => ({ title: `class ${k}` })) }));
      const files = [
        { id: 'ds/ann/good.png.json', type: 'annotation', content: good },
        { id: 'ds/ann/broken.png.json', type: 'annotation', content: broken },
        { id: 'ds/ann/no-objects.png.json', type: 'annotation', content: noObjects },
        { id: 'meta.json', type: 'class', content: classes },
        { id: 'other/meta.json', type: 'class', content: notClasses },
      ];
      for (const file of files) assert.ok(file.content.length > 64 * 1024, 'larger than what the staging folder keeps in memory');
      const body = multipartBody(files.map((f, k) => ({ key: `f${k}`, metadata: { id: f.id, hash: hashOf(f.content), type: f.type, format: 'supervisely' }, content: f.content })));
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import/files', payload: body.payload, headers: body.headers });
      assert.equal(res.statusCode, 200, res.body);
      const results = json<Result[]>(res);
      assert.deepEqual(
        results.map((r) => [r.id, r.errors, r.fileId !== undefined]),
        [
          ['ds/ann/good.png.json', [], true],
          ['ds/ann/broken.png.json', [{ code: 'INVALID_CONTENT', message: `not valid JSON: ${parseInline(broken).message}` }], false],
          ['ds/ann/no-objects.png.json', [{ code: 'INVALID_CONTENT', message: 'a Supervisely annotation needs an "objects" array' }], false],
          ['meta.json', [], true],
          ['other/meta.json', [{ code: 'INVALID_CONTENT', message: 'a Supervisely class file must be meta.json ({"classes": [...]}) or a list of classes' }], false],
        ],
      );
    });

    test('a large YOLO file that is not UTF-8 text, or has a NUL, is refused; UTF-8 cut between chunks is not', async () => {
      // 3-byte characters over more than one read of the file: some are split between two chunks.
      const text = Buffer.from(`${'0 0.5 0.5 0.1 0.1 € ✓\n'.repeat(20_000)}`);
      const notUtf8 = Buffer.concat([text, Buffer.from([0xe2, 0x82])]);
      const withNul = Buffer.concat([text, Buffer.from([0])]);
      const files = [text, notUtf8, withNul].map((content, k) => ({ key: `f${k}`, metadata: { id: `labels/${k}.txt`, hash: hashOf(content), type: 'annotation', format: 'yolo' }, content }));
      const body = multipartBody(files);
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import/files', payload: body.payload, headers: body.headers });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        json<Result[]>(res).map((r) => r.errors.map((e) => e.code)),
        [[], ['INVALID_CONTENT'], ['INVALID_CONTENT']],
      );
    });
  });
}
