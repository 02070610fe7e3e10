// The ArchiveStore contract on the local folder and on S3 (s3rver): an archive appears only whole,
// a failed stream leaves nothing, and ranges read back the right bytes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type Config, loadConfig } from '../../src/config.ts';
import { type ArchiveStore, archiveKey } from '../../src/storage/archive-store.ts';
import { createArchiveStore } from '../../src/storage/create-archive-store.ts';
import { FsArchiveStore, STALE_TEMP_MS } from '../../src/storage/fs-archive-store.ts';
import { S3ArchiveStore } from '../../src/storage/s3-archive-store.ts';
import { parseS3Url } from '../../src/storage/s3-blob-store.ts';
import { type StoreSetup, storeCases } from '../helpers/s3.ts';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The bytes in chunks of at most 1 MiB, as a stream. */
function streamOf(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 1 << 20) chunks.push(bytes.subarray(at, at + (1 << 20)));
  return Readable.from(chunks, { objectMode: false });
}

/** A stream that gives `bytes` then fails. */
function failingStream(bytes: Buffer): Readable {
  return Readable.from(
    (async function* () {
      yield bytes;
      throw new Error('the archive could not be written');
    })(),
    { objectMode: false },
  );
}

/** Whether the backing storage holds anything at all under `key`, looked at around the store. */
async function storedObjects(config: Config): Promise<string[]> {
  if (!config.storageUrl) {
    const root = path.join(config.dataDir, 'blobs');
    const walk = (dir: string): string[] =>
      fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)])) : [];
    return [...walk(path.join(root, 'archives')), ...walk(path.join(root, 'tmp'))].map((f) => path.relative(root, f));
  }
  const { endpoint, bucket } = parseS3Url(config.storageUrl);
  const listing = await (await fetch(`${endpoint}/${bucket}?list-type=2`)).text();
  const uploads = await (await fetch(`${endpoint}/${bucket}?uploads`)).text();
  return [...listing.matchAll(/<Key>([^<]+)<\/Key>/g), ...uploads.matchAll(/<UploadId>([^<]+)<\/UploadId>/g)].map((m) => m[1]!);
}

for (const store of storeCases) {
  describe(`archive store on ${store.name}`, () => {
    let setup: StoreSetup;
    let config: Config;
    let archives: ArchiveStore;

    before(async () => {
      setup = await store.setup();
      config = loadConfig({}, { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), `annostore-archives-${store.name}-`)), ...setup.overrides });
      // Small parts on S3, so a few megabytes make a multipart upload of several parts.
      archives = config.storageUrl ? S3ArchiveStore.fromUrl(config.storageUrl, { partSize: 5 * 1024 * 1024 }) : await createArchiveStore(config);
    });

    after(async () => {
      await archives?.close();
      await setup?.cleanup();
      if (config) fs.rmSync(config.dataDir, { recursive: true, force: true });
    });

    test('a whole stream reads back byte for byte, with its size; ranges give their bytes', async () => {
      const bytes = randomBytes(12 * 1024 * 1024 + 123);
      const key = archiveKey(1, 10);
      const stat = await archives.put(key, streamOf(bytes));
      assert.equal(stat.size, bytes.length);
      assert.match(stat.etag, /^(W\/)?".+"$/);
      assert.deepEqual(await archives.stat(key), stat);
      assert.ok((await collect(await archives.read(key))).equals(bytes));
      for (const [start, end] of [
        [0, 0],
        [5, 5 * 1024 * 1024 + 10],
        [bytes.length - 7, bytes.length - 1],
      ] as const) {
        assert.ok((await collect(await archives.read(key, { start, end }))).equals(bytes.subarray(start, end + 1)), `bytes ${start}-${end}`);
      }
      await archives.delete(key);
      assert.equal(await archives.stat(key), null);
      await archives.delete(key);
      await assert.rejects(archives.read(key));
    });

    test('a stream that fails midway leaves no object, and an earlier archive under the key as it was', async () => {
      const key = archiveKey(1, 11);
      await assert.rejects(archives.put(key, failingStream(randomBytes(7 * 1024 * 1024))), /could not be written/);
      assert.equal(await archives.stat(key), null);
      assert.deepEqual(await storedObjects(config), []);

      const first = randomBytes(1000);
      await archives.put(key, streamOf(first));
      await assert.rejects(archives.put(key, failingStream(randomBytes(6 * 1024 * 1024))), /could not be written/);
      assert.ok((await collect(await archives.read(key))).equals(first));
      await archives.delete(key);
      assert.deepEqual(await storedObjects(config), []);
    });

    test('an empty stream is an empty archive', async () => {
      const key = archiveKey(2, 12);
      assert.equal((await archives.put(key, Readable.from([], { objectMode: false }))).size, 0);
      assert.equal((await collect(await archives.read(key))).length, 0);
      await archives.delete(key);
    });

    test('a read given the entity tag of an earlier archive under the key is refused', async () => {
      const key = archiveKey(3, 13);
      const first = await archives.put(key, streamOf(randomBytes(2000)));
      const second = await archives.put(key, streamOf(randomBytes(3000)));
      assert.notEqual(first.etag, second.etag);
      await assert.rejects(archives.read(key, { start: 0, end: 99 }, first.etag));
      assert.equal((await collect(await archives.read(key, { start: 0, end: 99 }, second.etag))).length, 100);
      await archives.delete(key);
    });

    test("the object name is where the archive lies in the bucket, the store's prefix included", () => {
      const key = archiveKey(4, 14);
      const prefix = config.storageUrl ? parseS3Url(config.storageUrl).prefix : '';
      assert.equal(archives.objectName(key), prefix ? `${prefix}/${key}` : key);
    });

    test('keys the server did not make are refused', async () => {
      for (const key of ['../x.zip', 'exports/1/../../x.zip', 'blobs/ab/cd', 'exports/a/1.zip']) {
        await assert.rejects(archives.put(key, streamOf(Buffer.from('x'))), /not an archive key/);
        await assert.rejects(archives.stat(key), /not an archive key/);
      }
    });
  });
}

describe('archive store on a local folder: what dead workers leave', () => {
  let root: string;
  let tmp: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-archives-'));
    tmp = path.join(root, 'tmp');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  /** A put whose stream has given some bytes and waits: an attempt in progress, or one whose worker died. */
  async function stalledPut(store: FsArchiveStore, key: string): Promise<{ stream: PassThrough; done: Promise<unknown> }> {
    const stream = new PassThrough();
    const before = new Set(fs.readdirSync(tmp));
    const done = store.put(key, stream).catch((error: unknown) => error);
    stream.write(randomBytes(4096));
    // Wait for the bytes themselves, not only the file: a write that lands later would move the file's
    // modification time past one a test sets.
    const written = (): boolean =>
      fs.readdirSync(tmp).some((name) => !before.has(name) && fs.statSync(path.join(tmp, name), { throwIfNoEntry: false })?.size === 4096);
    while (!written()) await new Promise((resolve) => setTimeout(resolve, 5));
    return { stream, done };
  }

  test("the next attempt at a key removes an earlier attempt's file; the earlier one can no longer publish", async () => {
    const dead = new FsArchiveStore(path.join(root, 'archives'), tmp);
    const live = new FsArchiveStore(path.join(root, 'archives'), tmp);
    const key = archiveKey(1, 21);
    const earlier = await stalledPut(dead, key);
    const bytes = randomBytes(5000);
    await live.put(key, streamOf(bytes));
    assert.deepEqual(fs.readdirSync(tmp), [], 'no temporary file is left');
    earlier.stream.end(randomBytes(10));
    assert.ok((await earlier.done) instanceof Error, 'the superseded attempt fails');
    assert.ok((await collect(await live.read(key))).equals(bytes), 'the published archive is the later one');
    assert.deepEqual(fs.readdirSync(tmp), []);

    // Removing an export removes the file of an attempt at it too.
    const another = await stalledPut(dead, archiveKey(1, 22));
    await live.delete(archiveKey(1, 22));
    assert.deepEqual(fs.readdirSync(tmp), []);
    another.stream.destroy();
    await another.done;
  });

  test('a temporary archive of any key left untouched for an hour goes at the next put', async () => {
    const store = new FsArchiveStore(path.join(root, 'archives'), tmp);
    const recent = await stalledPut(store, archiveKey(2, 31));
    const old = await stalledPut(store, archiveKey(2, 32));
    const recentName = fs.readdirSync(tmp).find((name) => name.includes('_31.'));
    const oldName = fs.readdirSync(tmp).find((name) => name.includes('_32.'));
    const hoursAgo = new Date(Date.now() - STALE_TEMP_MS - 60_000);
    fs.utimesSync(path.join(tmp, oldName!), hoursAgo, hoursAgo);
    await store.put(archiveKey(2, 33), streamOf(Buffer.from('x')));
    assert.deepEqual(fs.readdirSync(tmp), [recentName], 'only the file being written is kept');
    for (const put of [recent, old]) {
      put.stream.destroy();
      await put.done;
    }
    assert.deepEqual(fs.readdirSync(tmp), []);
  });
});
