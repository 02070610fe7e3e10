// The BlobStore contract, proven on the local folder and on S3 (s3rver), through createBlobStore.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type Config, loadConfig } from '../../src/config.ts';
import { type BlobStore, blobKey } from '../../src/storage/blob-store.ts';
import { createBlobStore } from '../../src/storage/create-blob-store.ts';
import { FsBlobStore } from '../../src/storage/fs-blob-store.ts';
import { parseS3Url } from '../../src/storage/s3-blob-store.ts';
import { type StoreSetup, storeCases } from '../helpers/s3.ts';

const hashOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64');

/** A blob of `size` random bytes with its hash. */
function newBlob(size = 1024): { bytes: Buffer; hash: string } {
  const bytes = randomBytes(size);
  return { bytes, hash: hashOf(bytes) };
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const tempDir = (label: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `annostore-${label}-`));

/**
 * The bytes the backing storage holds under the key of `hash`, read around the store: the file in the
 * blob folder, or the object as s3rver serves it over plain HTTP. Undefined when there is none.
 */
async function storedBytes(config: Config, hash: string): Promise<Buffer | undefined> {
  if (!config.storageUrl) {
    const file = path.join(config.dataDir, 'blobs', 'objects', blobKey(hash));
    return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  }
  const { endpoint, bucket, prefix } = parseS3Url(config.storageUrl);
  const key = prefix ? `${prefix}/${blobKey(hash)}` : blobKey(hash);
  const answer = await fetch(`${endpoint}/${bucket}/${key}`);
  if (answer.status === 404) return undefined;
  assert.equal(answer.status, 200);
  return Buffer.from(await answer.arrayBuffer());
}

const validHash = hashOf(Buffer.from('a valid hash'));
// Each decodes to 32 bytes with Node's lenient base64 decoder, or is plainly not a hash.
const invalidHashes = [
  '',
  'abc',
  '../../../../etc/passwd',
  `../${validHash}`,
  ` ${validHash}`,
  `${validHash}\n`,
  `${validHash}junk`,
  validHash.replace(/=$/, ''),
  Buffer.from(validHash, 'base64').toString('base64url'),
  Buffer.from(validHash, 'base64').toString('hex'),
  randomBytes(31).toString('base64'),
  randomBytes(33).toString('base64'),
];

describe('blobKey', () => {
  test('fans the hex of the hash out over two folder levels', () => {
    const hex = Buffer.from(validHash, 'base64').toString('hex');
    assert.equal(blobKey(validHash), `${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`);
  });

  test('rejects anything but the canonical base64 of 32 bytes', () => {
    for (const hash of invalidHashes) assert.throws(() => blobKey(hash), /not a SHA-256 hash/, JSON.stringify(hash));
    // Same 32 bytes, but a last character whose unused bits are set.
    const last = validHash.at(-2) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sibling = `${validHash.slice(0, -2)}${alphabet[alphabet.indexOf(last) + 1]}=`;
    assert.deepEqual(Buffer.from(sibling, 'base64'), Buffer.from(validHash, 'base64'));
    assert.throws(() => blobKey(sibling), /not a SHA-256 hash/);
  });
});

describe('FsBlobStore.readBytesSync', () => {
  let root: string;
  let store: FsBlobStore;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-readsync-'));
    store = new FsBlobStore(root);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('reads a blob into the scratch when it fits, else into a buffer of its own', async () => {
    const scratch = Buffer.alloc(64);
    for (const length of [0, 10, 63, 64, 65, 5000]) {
      const bytes = randomBytes(length);
      const hash = createHash('sha256').update(bytes).digest('base64');
      await store.putBytes(hash, bytes);
      const read = store.readBytesSync(hash, scratch);
      assert.deepEqual(read, bytes, `${length} bytes`);
      assert.equal(read.buffer === scratch.buffer, length < scratch.length, `${length} bytes: read into the scratch`);
    }
    assert.throws(() => store.readBytesSync(validHash, scratch), { code: 'ENOENT' });
  });
});

describe('parseS3Url', () => {
  test('reads credentials, prefix and path style from the URL', () => {
    const location = parseS3Url('s3://bucket/some%20prefix/?endpoint=http://127.0.0.1:9000&accessKeyId=id&secretAccessKey=secret');
    assert.deepEqual(location, {
      bucket: 'bucket',
      prefix: 'some prefix',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    assert.equal(parseS3Url('s3://bucket').credentials, undefined);
    assert.equal(parseS3Url('s3://bucket').forcePathStyle, false);
    assert.equal(parseS3Url('s3://bucket?forcePathStyle=true').forcePathStyle, true);
    assert.equal(parseS3Url('s3://bucket?endpoint=http://h&forcePathStyle=false').forcePathStyle, false);
  });

  test('wants both halves of a key pair', () => {
    assert.throws(() => parseS3Url('s3://bucket?accessKeyId=id'), /together/);
    assert.throws(() => parseS3Url('s3://bucket?secretAccessKey=secret'), /together/);
  });
});

for (const store of storeCases) {
  describe(`blob store on ${store.name}`, () => {
    let setup: StoreSetup;
    let config: Config;
    let blobs: BlobStore;

    before(async () => {
      setup = await store.setup();
      config = loadConfig({}, { dataDir: tempDir(`blobs-${store.name}`), ...setup.overrides });
      blobs = await createBlobStore(config);
    });

    after(async () => {
      await blobs?.close();
      await setup?.cleanup();
      if (config) fs.rmSync(config.dataDir, { recursive: true, force: true });
    });

    test('uses the store the config names', () => {
      assert.equal(blobs.constructor.name, store.name === 's3' ? 'S3BlobStore' : 'FsBlobStore');
    });

    test('ping answers', async () => {
      await blobs.ping();
    });

    test('readSmall answers each blob in order: its stored bytes whatever the size given, a missing one an error of its own', async () => {
      const blobsIn = [newBlob(4096), newBlob(0), newBlob(3000), newBlob(100)];
      for (const { bytes, hash } of blobsIn) await blobs.putBytes(hash, bytes);
      const missing = newBlob(50);
      const reads = blobs.readSmall([
        { hash: blobsIn[0]!.hash, size: 4096 },
        { hash: blobsIn[1]!.hash, size: 0 },
        { hash: missing.hash, size: 50 },
        { hash: blobsIn[2]!.hash, size: 2999 },
        { hash: blobsIn[3]!.hash, size: 101 },
      ]);
      await assert.rejects(reads[2]!, 'the missing blob');
      for (const [i, blob] of [blobsIn[0]!, blobsIn[1]!, null, blobsIn[2]!, blobsIn[3]!].entries()) {
        if (blob) assert.ok((await reads[i]!).equals(blob.bytes), `read ${i}`);
      }
    });

    test('readBytes with a size gives the stored bytes, whether the size is theirs or not', async () => {
      const { bytes, hash } = newBlob(4096);
      await blobs.putBytes(hash, bytes);
      for (const size of [4096, 4095, 4097, 0, 100_000]) assert.ok((await blobs.readBytes(hash, size)).equals(bytes), `size ${size}`);
      await assert.rejects(blobs.readBytes(newBlob().hash, 1024), 'a missing blob is an error, size or not');
    });

    for (const [label, size] of [
      ['1 KiB', 1024],
      ['5 MiB', 5 * 1024 * 1024],
      ['empty', 0],
    ] as const) {
      test(`putBytes then readBytes gives the same bytes (${label})`, async () => {
        const { bytes, hash } = newBlob(size);
        await blobs.putBytes(hash, bytes);
        assert.ok((await blobs.readBytes(hash)).equals(bytes));
        const stored = await storedBytes(config, hash);
        assert.equal(stored?.length, size);
        assert.ok(stored.equals(bytes), 'the stored object is the bytes written, nothing around them');
      });
    }

    for (const [label, size] of [
      ['1 KiB', 1024],
      ['5 MiB', 5 * 1024 * 1024],
      ['empty', 0],
    ] as const) {
      test(`putFile stores the bytes of a local file (${label})`, async () => {
        const { bytes, hash } = newBlob(size);
        const source = path.join(tempDir('source'), 'upload.bin');
        fs.writeFileSync(source, bytes);
        try {
          await blobs.putFile(hash, source);
        } finally {
          fs.rmSync(path.dirname(source), { recursive: true, force: true });
        }
        assert.ok((await blobs.readBytes(hash)).equals(bytes));
        const stored = await storedBytes(config, hash);
        assert.equal(stored?.length, size);
        assert.ok(stored.equals(bytes), 'the stored object is the bytes written, nothing around them');
      });
    }

    for (const synced of [false, true]) {
      test(`adoptFile stores the bytes of a local file and takes it away${synced ? ' (flushed by the caller)' : ''}`, async () => {
        const { bytes, hash } = newBlob(300 * 1024);
        const dir = tempDir('adopt');
        const source = path.join(dir, 'upload.bin');
        fs.writeFileSync(source, bytes);
        try {
          await blobs.adoptFile(hash, source, { synced });
          assert.equal(fs.existsSync(source), false, 'the local file is gone');
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
        assert.ok((await blobs.readBytes(hash)).equals(bytes));
        assert.ok((await storedBytes(config, hash))?.equals(bytes));
      });
    }

    test('only a store that keeps adopted files asks for them flushed', () => {
      assert.equal(blobs.adoptsLocalFiles, store.name !== 's3');
    });

    test('putFile of a missing local file rejects and stores nothing', async () => {
      const { hash } = newBlob();
      await assert.rejects(blobs.putFile(hash, path.join(os.tmpdir(), `missing-${randomBytes(8).toString('hex')}`)), { code: 'ENOENT' });
      assert.equal(await blobs.has(hash), false);
    });

    test('read streams the same bytes', async () => {
      const { bytes, hash } = newBlob(3 * 1024 * 1024 + 7);
      await blobs.putBytes(hash, bytes);
      assert.ok((await collect(await blobs.read(hash))).equals(bytes));
    });

    test('read of a range streams exactly the bytes of the range', async () => {
      const { bytes, hash } = newBlob(300 * 1024 + 11);
      await blobs.putBytes(hash, bytes);
      for (const [start, end] of [[0, 0], [0, 99], [1000, 200_000], [bytes.length - 5, bytes.length - 1], [17, bytes.length - 1]] as const) {
        const slice = await collect(await blobs.read(hash, { start, end }));
        assert.ok(slice.equals(bytes.subarray(start, end + 1)), `bytes ${start}-${end}`);
      }
    });

    test('has answers whether the blob is there', async () => {
      const { bytes, hash } = newBlob();
      assert.equal(await blobs.has(hash), false);
      await blobs.putBytes(hash, bytes);
      assert.equal(await blobs.has(hash), true);
    });

    test('delete removes the blob; reading it then rejects', async () => {
      const { bytes, hash } = newBlob();
      await blobs.putBytes(hash, bytes);
      await blobs.delete(hash);
      assert.equal(await blobs.has(hash), false);
      await assert.rejects(blobs.read(hash));
      await assert.rejects(blobs.readBytes(hash));
      assert.equal(await storedBytes(config, hash), undefined);
    });

    test('deleting a missing blob is fine', async () => {
      const { hash } = newBlob();
      await blobs.delete(hash);
      await blobs.delete(hash);
      assert.equal(await blobs.has(hash), false);
    });

    test('reading a missing blob rejects', async () => {
      const { hash } = newBlob();
      await assert.rejects(blobs.read(hash));
      await assert.rejects(blobs.read(hash, { start: 0, end: 9 }));
      await assert.rejects(blobs.readBytes(hash));
    });

    test('writing the same hash twice, in turn or at once, is fine', async () => {
      const { bytes, hash } = newBlob(256 * 1024);
      await blobs.putBytes(hash, bytes);
      await blobs.putBytes(hash, bytes);
      const source = path.join(tempDir('source'), 'again.bin');
      fs.writeFileSync(source, bytes);
      try {
        await Promise.all([blobs.putFile(hash, source), blobs.putBytes(hash, bytes), blobs.putBytes(hash, bytes)]);
      } finally {
        fs.rmSync(path.dirname(source), { recursive: true, force: true });
      }
      assert.ok((await blobs.readBytes(hash)).equals(bytes));
      assert.ok((await storedBytes(config, hash))?.equals(bytes));
    });

    test('every operation rejects a hash that is not a SHA-256 in base64', async () => {
      const source = path.join(tempDir('source'), 'bad.bin');
      fs.writeFileSync(source, 'x');
      try {
        for (const hash of invalidHashes) {
          const name = JSON.stringify(hash);
          await assert.rejects(blobs.putBytes(hash, Buffer.from('x')), /not a SHA-256 hash/, name);
          await assert.rejects(blobs.putFile(hash, source), /not a SHA-256 hash/, name);
          await assert.rejects(blobs.read(hash), /not a SHA-256 hash/, name);
          await assert.rejects(blobs.readBytes(hash), /not a SHA-256 hash/, name);
          await assert.rejects(blobs.has(hash), /not a SHA-256 hash/, name);
          await assert.rejects(blobs.delete(hash), /not a SHA-256 hash/, name);
        }
      } finally {
        fs.rmSync(path.dirname(source), { recursive: true, force: true });
      }
    });
  });
}

describe('blob store on fs: what a reader can see', () => {
  let config: Config;
  let blobs: BlobStore;
  let root: string;
  const objectPath = (hash: string): string => path.join(root, 'objects', blobKey(hash));
  const tmpEntries = (): string[] => fs.readdirSync(path.join(root, 'tmp'));

  before(async () => {
    config = loadConfig({}, { dataDir: tempDir('blobs-fs') });
    blobs = await createBlobStore(config);
    root = path.join(config.dataDir, 'blobs');
  });

  after(async () => {
    await blobs?.close();
    if (config) fs.rmSync(config.dataDir, { recursive: true, force: true });
  });

  /** Runs `write` and, until it settles, checks that the object is either absent or complete. */
  async function watchWrite(hash: string, bytes: Buffer, write: () => Promise<void>): Promise<void> {
    const target = objectPath(hash);
    const pending = write();
    let settled = false;
    const done = pending.finally(() => {
      settled = true;
    });
    let looks = 0;
    while (!settled) {
      looks += 1;
      if (fs.existsSync(target)) assert.ok(fs.readFileSync(target).equals(bytes), 'a partial object became visible');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    assert.ok(looks > 1, 'the write was watched while in flight');
    assert.ok(fs.readFileSync(target).equals(bytes));
  }

  test('putBytes: the object appears whole, only once the write resolves', async () => {
    const { bytes, hash } = newBlob(8 * 1024 * 1024);
    assert.equal(fs.existsSync(objectPath(hash)), false);
    await watchWrite(hash, bytes, () => blobs.putBytes(hash, bytes));
    assert.deepEqual(tmpEntries(), []);
  });

  test('putFile: the object appears whole, only once the write resolves', async () => {
    const { bytes, hash } = newBlob(8 * 1024 * 1024);
    const source = path.join(tempDir('source'), 'upload.bin');
    fs.writeFileSync(source, bytes);
    try {
      await watchWrite(hash, bytes, () => blobs.putFile(hash, source));
    } finally {
      fs.rmSync(path.dirname(source), { recursive: true, force: true });
    }
    assert.deepEqual(tmpEntries(), []);
  });

  test('a failed putFile leaves neither a temporary file nor an object', async () => {
    const { hash } = newBlob();
    await assert.rejects(blobs.putFile(hash, path.join(root, 'no-such-source')), { code: 'ENOENT' });
    // A folder as source fails after the temporary file may have been created.
    const folder = tempDir('source');
    try {
      await assert.rejects(blobs.putFile(hash, folder));
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
    assert.deepEqual(tmpEntries(), []);
    assert.equal(fs.existsSync(objectPath(hash)), false);
  });

  test('a folder removed behind the store\'s back is made again on the next write into it', async () => {
    const { bytes, hash } = newBlob();
    await blobs.putBytes(hash, bytes);
    fs.rmSync(path.join(root, 'objects'), { recursive: true, force: true });
    await blobs.putBytes(hash, bytes);
    assert.ok(fs.readFileSync(objectPath(hash)).equals(bytes));
    fs.rmSync(path.join(root, 'objects'), { recursive: true, force: true });
    const source = path.join(tempDir('source'), 'upload.bin');
    fs.writeFileSync(source, bytes);
    try {
      await blobs.adoptFile(hash, source);
    } finally {
      fs.rmSync(path.dirname(source), { recursive: true, force: true });
    }
    assert.ok(fs.readFileSync(objectPath(hash)).equals(bytes));
    assert.deepEqual(tmpEntries(), []);
  });

  test('files live only under objects/<2 hex>/<2 hex>/<hex of the hash>', async () => {
    const written = [newBlob(), newBlob(), newBlob(0)];
    for (const { bytes, hash } of written) await blobs.putBytes(hash, bytes);
    for (const hash of invalidHashes) await assert.rejects(blobs.putBytes(hash, Buffer.from('x')));
    const objects = path.join(root, 'objects');
    const files = (await fsp.readdir(objects, { recursive: true })).filter((file) => fs.statSync(path.join(objects, file)).isFile());
    for (const { hash } of written) assert.ok(files.includes(blobKey(hash)), blobKey(hash));
    for (const file of files) assert.match(file, /^([0-9a-f]{2})\/([0-9a-f]{2})\/\1\2[0-9a-f]{60}$/);
    assert.deepEqual(fs.readdirSync(root).sort(), ['objects', 'tmp']);
    assert.deepEqual(tmpEntries(), []);
  });
});
