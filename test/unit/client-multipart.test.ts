// The client's hand-built multipart bodies, read back by a standard parser: fields, file names that
// need quoting, and files given as bytes or as Blobs read from disk.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { multipartBody } from '../../src/client/multipart.ts';

async function parse(body: Buffer | Blob, contentType: string): Promise<FormData> {
  return new Response(body, { headers: { 'content-type': contentType } }).formData();
}

test('bytes in memory make one buffer that parses back to the same parts', async () => {
  const image = randomBytes(70_000);
  const { body, contentType } = multipartBody([
    { name: 'f0', value: JSON.stringify({ id: 'ds/img/a "b".png', type: 'image' }) },
    { name: 'f0-file', filename: 'a "b"\r\n.png', content: image },
    { name: 'f1', value: '{}' },
    { name: 'f1-file', filename: 'empty.json', content: new Uint8Array(0) },
  ]);
  assert.ok(Buffer.isBuffer(body));
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
    const { body, contentType } = multipartBody([
      { name: 'f0-file', filename: 'big.png', content: await fs.openAsBlob(path.join(dir, 'big.png')) },
      { name: 'f1-file', filename: 'small.png', content: small },
    ]);
    assert.ok(body instanceof Blob && !Buffer.isBuffer(body));
    const form = await parse(body, contentType);
    assert.ok(Buffer.from(await (form.get('f0-file') as File).arrayBuffer()).equals(bytes));
    assert.ok(Buffer.from(await (form.get('f1-file') as File).arrayBuffer()).equals(small));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
