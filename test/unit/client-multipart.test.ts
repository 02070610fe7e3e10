// The client's hand-built multipart bodies, read back by a standard parser: fields, file names that
// need quoting, and files given as bytes or as Blobs read from disk.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fetchBody, multipartBody } from '../../src/client/multipart.ts';

async function parse(body: Buffer | Blob, contentType: string): Promise<FormData> {
  return new Response(body, { headers: { 'content-type': contentType } }).formData();
}

const sizeOf = (piece: Buffer | Blob): number => (piece instanceof Blob ? piece.size : piece.length);

test('bytes in memory make one buffer that parses back to the same parts', async () => {
  const image = randomBytes(70_000);
  const multipart = multipartBody([
    { name: 'f0', value: JSON.stringify({ id: 'ds/img/a "b".png', type: 'image' }) },
    { name: 'f0-file', filename: 'a "b"\r\n.png', content: image },
    { name: 'f1', value: '{}' },
    { name: 'f1-file', filename: 'empty.json', content: new Uint8Array(0) },
  ]);
  const { contentType } = multipart;
  // The file's own bytes are a piece of the body, not a copy; the length counts every piece.
  assert.ok(multipart.pieces.some((piece) => Buffer.isBuffer(piece) && piece.buffer === image.buffer));
  assert.equal(multipart.length, multipart.pieces.reduce((n, piece) => n + sizeOf(piece), 0));
  const body = fetchBody(multipart);
  assert.ok(Buffer.isBuffer(body));
  assert.equal(body.length, multipart.length);
  const form = await parse(body, contentType);
  assert.deepEqual(JSON.parse(form.get('f0') as string), { id: 'ds/img/a "b".png', type: 'image' });
  const file = form.get('f0-file') as File;
  // Quoted on the way out (%22, %0D, %0A), as browsers do; the parser decodes them back.
  assert.equal(file.name, 'a "b"\r\n.png');
  assert.ok(Buffer.from(await file.arrayBuffer()).equals(image));
  assert.equal((form.get('f1-file') as File).size, 0);
});

test('a Blob from disk makes a Blob body that streams the file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-multipart-'));
  try {
    const bytes = randomBytes(200_000);
    fs.writeFileSync(path.join(dir, 'big.png'), bytes);
    const small = randomBytes(10);
    const multipart = multipartBody([
      { name: 'f0-file', filename: 'big.png', content: await fs.openAsBlob(path.join(dir, 'big.png')) },
      { name: 'f1-file', filename: 'small.png', content: small },
    ]);
    const { contentType } = multipart;
    const body = fetchBody(multipart);
    assert.ok(body instanceof Blob && !Buffer.isBuffer(body));
    assert.equal(body.size, multipart.length);
    const form = await parse(body, contentType);
    assert.ok(Buffer.from(await (form.get('f0-file') as File).arrayBuffer()).equals(bytes));
    assert.ok(Buffer.from(await (form.get('f1-file') as File).arrayBuffer()).equals(small));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
