// The streaming zip writer: what Info-ZIP's unzip and Python's zipfile read back from its archives.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';
import { tableCrc32 } from '../../src/formats/crc32.ts';
import { ZipArchive, type ZipEntry, isCompressible } from '../../src/formats/zip-archive.ts';
import { scratchDir } from '../helpers/archive-folder.ts';

const dir = scratchDir('zip-archive');

/** Writes the entries to a file while they are added, as an export does. */
async function writeZip(file: string, entries: Iterable<ZipEntry>, options: { forceZip64?: boolean; spoolDir?: string; centralMemoryBytes?: number } = {}): Promise<void> {
  const archive = new ZipArchive({ mtime: new Date('2026-01-02T03:04:06Z'), ...options });
  const writing = pipeline(archive.output, fs.createWriteStream(file));
  for (const entry of entries) await archive.add(entry);
  await archive.end();
  await writing;
}

/** Every entry as Python's zipfile reads it: name, method (0 stored, 8 deflated), bytes in hex. */
function pythonRead(file: string): { name: string; method: number; hex: string }[] {
  const script = `
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    print(json.dumps([{"name": i.filename, "method": i.compress_type, "hex": z.read(i).hex()} for i in z.infolist()]))
`;
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as { name: string; method: number; hex: string }[];
}

describe('zip archive', () => {
  test('CRC-32 of the table version: the check value, continued across chunks, equal to gzip\'s', () => {
    assert.equal(tableCrc32(Buffer.from('123456789')), 0xcbf43926);
    const bytes = randomBytes(100_003);
    const whole = tableCrc32(bytes);
    assert.equal(tableCrc32(bytes.subarray(37), tableCrc32(bytes.subarray(0, 37))), whole);
    const gzip = zlib.gzipSync(bytes, { level: 0 });
    assert.equal(whole, gzip.readUInt32LE(gzip.length - 8));
  });

  test('names, bytes and methods read back by unzip and by Python; images stored, text deflated', async () => {
    const image = randomBytes(300_000);
    const json = Buffer.from(JSON.stringify({ objects: Array.from({ length: 500 }, (_, i) => ({ id: i })) }));
    const entries: ZipEntry[] = [
      { path: 'meta.json', body: json, compress: isCompressible('meta.json') },
      { path: 'ds 1/img/photo é.jpg', body: async () => Readable.from([image.subarray(0, 1000), image.subarray(1000)]), compress: isCompressible('photo.jpg') },
      { path: 'ds 1/ann/empty.txt', body: Buffer.alloc(0), compress: true },
    ];
    const file = path.join(dir, 'plain.zip');
    await writeZip(file, entries);

    execFileSync('unzip', ['-tq', file]);
    assert.deepEqual(execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n'), entries.map((e) => e.path));
    const read = pythonRead(file);
    assert.deepEqual(
      read.map((r) => [r.name, r.method]),
      [
        ['meta.json', 8],
        ['ds 1/img/photo é.jpg', 0],
        ['ds 1/ann/empty.txt', 8],
      ],
    );
    assert.equal(read[0]!.hex, json.toString('hex'));
    assert.equal(read[1]!.hex, image.toString('hex'));
    assert.equal(read[2]!.hex, '');
  });

  test('read front to back by a streaming reader (Java\'s ZipInputStream): sizes in the header for bytes at hand, a descriptor after a stream', async (t) => {
    const jar = ['/usr/bin/jar', ...(process.env.JAVA_HOME ? [path.join(process.env.JAVA_HOME, 'bin', 'jar')] : [])].find((p) => fs.existsSync(p));
    if (!jar) return t.skip('no jar command on this machine: the streaming reader is not checked');
    const image = randomBytes(70_000);
    const text = Buffer.from('{"a":1}\n'.repeat(5000));
    const entries: ZipEntry[] = [
      { path: 'img/stored.jpg', body: image, compress: false },
      { path: 'ann/at-hand.json', body: text, compress: true },
      { path: 'ann/streamed.json', body: async () => Readable.from([text.subarray(0, 100), text.subarray(100)]), compress: true },
    ];
    const file = path.join(dir, 'streaming.zip');
    await writeZip(file, entries);
    const out = scratchDir('zip-streaming-read');
    execFileSync(jar, ['x'], { cwd: out, input: fs.readFileSync(file) });
    assert.ok(fs.readFileSync(path.join(out, 'img', 'stored.jpg')).equals(image));
    assert.ok(fs.readFileSync(path.join(out, 'ann', 'at-hand.json')).equals(text));
    assert.ok(fs.readFileSync(path.join(out, 'ann', 'streamed.json')).equals(text));
    execFileSync('unzip', ['-tq', file]);
  });

  test('a central directory past its memory goes to the spool folder and comes back whole; the folder is left empty', async () => {
    const spoolDir = scratchDir('zip-central-spool');
    const spilled: string[][] = [];
    const entries = function* (): Generator<ZipEntry> {
      for (let i = 0; i < 3000; i += 1) {
        // While entries are added, what the spool folder holds (the directory's first records).
        if (i === 2999) spilled.push(fs.readdirSync(spoolDir));
        yield { path: `ann/${i}.json`, body: Buffer.from(`{"i":${i}}`), compress: true };
      }
    };
    const file = path.join(dir, 'spooled.zip');
    await writeZip(file, entries(), { spoolDir, centralMemoryBytes: 16 * 1024 });
    assert.equal(spilled[0]!.length, 1, 'the records went to a spool file while the archive was written');
    assert.deepEqual(fs.readdirSync(spoolDir), [], 'the spool file is gone once the archive has ended');
    execFileSync('unzip', ['-tq', file]);
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).trim().split('\n');
    assert.deepEqual(names, Array.from({ length: 3000 }, (_, i) => `ann/${i}.json`));
    const read = pythonRead(file);
    assert.equal(Buffer.from(read[2999]!.hex, 'hex').toString(), '{"i":2999}');
  });

  test('a stream that fails fails the archive; no complete archive is written', async () => {
    const archive = new ZipArchive();
    const collected: Buffer[] = [];
    const reading = (async () => {
      for await (const chunk of archive.output) collected.push(chunk as Buffer);
    })();
    await archive.add({ path: 'a.txt', body: Buffer.from('a'), compress: true });
    const adding = archive.add({
      path: 'b.jpg',
      compress: false,
      body: async () =>
        Readable.from(
          (async function* () {
            yield Buffer.from('partial');
            throw new Error('blob read failed');
          })(),
        ),
    });
    await assert.rejects(adding, /blob read failed/);
    await assert.rejects(reading, /blob read failed/);
    await assert.rejects(archive.end(), /blob read failed/);
  });

  test('a body that cannot be opened fails the archive', async () => {
    const archive = new ZipArchive();
    const reading = (async () => {
      for await (const chunk of archive.output) void chunk;
    })();
    await assert.rejects(archive.add({ path: 'x.jpg', compress: false, body: async () => Promise.reject(new Error('no such blob')) }), /no such blob/);
    await assert.rejects(reading, /no such blob/);
  });

  test('an archive failed before its reader has started: the reader, once it starts, sees the failure', async () => {
    const archive = new ZipArchive();
    archive.fail(new Error('stopped'));
    // A turn of the event loop with no reader: the failure must not be an uncaught error of the process.
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(pipeline(archive.output, fs.createWriteStream(path.join(dir, 'failed-early.zip'))), /stopped/);
  });

  test('add waits while the reader is behind, so memory stays bounded', async () => {
    const archive = new ZipArchive();
    let added = false;
    const adding = archive
      .add({ path: 'big.bin', compress: false, body: async () => Readable.from(Array.from({ length: 64 }, () => Buffer.alloc(256 * 1024, 7))) })
      .then(() => (added = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(added, false, 'the 16 MiB entry waits for a reader');
    assert.ok(archive.output.readableLength <= 2 * archive.output.readableHighWaterMark);
    const reading = (async () => {
      let bytes = 0;
      for await (const chunk of archive.output) bytes += (chunk as Buffer).length;
      return bytes;
    })();
    await adding;
    await archive.end();
    assert.ok((await reading) > 16 * 1024 * 1024);
  });

  test('ZIP64 end records when asked, still read by both readers', async () => {
    const file = path.join(dir, 'forced.zip');
    await writeZip(file, [{ path: 'a.txt', body: Buffer.from('hello'), compress: true }], { forceZip64: true });
    const bytes = fs.readFileSync(file);
    assert.ok(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06])), 'a ZIP64 end of central directory record');
    execFileSync('unzip', ['-tq', file]);
    assert.equal(Buffer.from(pythonRead(file)[0]!.hex, 'hex').toString(), 'hello');
  });

  test('more than 65,535 entries: ZIP64 without asking, every entry listed', async () => {
    const count = 65_540;
    const file = path.join(dir, 'many.zip');
    await writeZip(
      file,
      (function* () {
        for (let i = 0; i < count; i += 1) yield { path: `d/${i}.txt`, body: Buffer.from(String(i)), compress: false };
      })(),
    );
    const bytes = fs.readFileSync(file);
    assert.ok(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06])), 'a ZIP64 end of central directory record');
    const script = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    infos = z.infolist()
    print(len(infos), infos[-1].filename, z.read(infos[-1]).decode())
`;
    assert.equal(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }).trim(), `${count} d/${count - 1}.txt ${count - 1}`);
    execFileSync('unzip', ['-tq', file]);
  });
});
