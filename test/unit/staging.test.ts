// The upload staging folder: files are hashed as they stream in, small ones are kept in memory too,
// a flushing folder syncs each file in the background, and nothing of a folder outlives remove().
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { KEEP_BYTES, StagingFolder } from '../../src/storage/staging.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-staging-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const hashOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64');

/** A part stream as busboy gives it: the bytes in chunks, `truncated` set when the limit cut it. */
function part(bytes: Buffer, chunk = 16 * 1024, truncated = false): Readable & { truncated?: boolean } {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += chunk) chunks.push(bytes.subarray(at, at + chunk));
  const stream: Readable & { truncated?: boolean } = Readable.from(chunks, { objectMode: false });
  stream.truncated = truncated;
  return stream;
}

describe('staging folder', () => {
  for (const flush of [false, true]) {
    test(`receive writes and hashes every byte${flush ? ', flushing in the background' : ''}`, async () => {
      const folder = await StagingFolder.create(root, { flush });
      try {
        const big = randomBytes(KEEP_BYTES * 3 + 5);
        const small = randomBytes(KEEP_BYTES);
        const empty = Buffer.alloc(0);
        for (const bytes of [big, small, empty]) {
          const file = await folder.receive(part(bytes));
          assert.equal(file.hash, hashOf(bytes));
          assert.equal(file.size, bytes.length);
          assert.equal(file.truncated, false);
          assert.ok(fs.readFileSync(file.path).equals(bytes));
          // Kept in memory up to KEEP_BYTES only.
          if (bytes.length <= KEEP_BYTES) assert.ok(file.bytes?.equals(bytes));
          else assert.equal(file.bytes, undefined);
          assert.equal(file.synced !== undefined, flush);
          await file.synced;
        }
      } finally {
        await folder.remove();
      }
      assert.equal(fs.existsSync(folder.dir), false);
    });
  }

  test('a part cut at the size limit says so', async () => {
    const folder = await StagingFolder.create(root);
    try {
      const file = await folder.receive(part(randomBytes(1000), 100, true));
      assert.equal(file.truncated, true);
    } finally {
      await folder.remove();
    }
  });

  test('a part that fails mid-stream rejects, and the folder still goes away whole', async () => {
    const folder = await StagingFolder.create(root, { flush: true });
    const failing = new Readable({
      read() {
        this.push(randomBytes(1000));
        this.destroy(new Error('connection reset'));
      },
    });
    await assert.rejects(folder.receive(failing), /connection reset/);
    const after = await folder.receive(part(randomBytes(10)));
    await after.synced;
    await folder.remove();
    assert.equal(fs.existsSync(folder.dir), false);
  });
});
