// A format writer's archive entries written out as the folder a user gets when unpacking the archive.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { ArchiveEntry } from '../../src/formats/writer.ts';
import { tempDir } from './dialects.ts';

const scratch: string[] = [];
process.on('exit', () => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new temporary folder, removed when the test process ends. */
export function scratchDir(label: string): string {
  const dir = tempDir(label);
  scratch.push(dir);
  return dir;
}

/** Runs the records through the writer: the entries of every `add`, then those of `finish`. */
export async function writeAll<R>(writer: { add(record: R): Promise<ArchiveEntry[]>; finish(): Promise<ArchiveEntry[]> }, records: Iterable<R>): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  for (const record of records) entries.push(...(await writer.add(record)));
  entries.push(...(await writer.finish()));
  return entries;
}

/**
 * Writes the entries under `dir`; a body naming a blob gets `imageBytes(hash)`. Fails when two
 * entries would land on one file (names compared without case, as an unpacked archive on Windows or
 * macOS compares them) or a path is not a plain relative one.
 */
export async function writeEntries(entries: readonly ArchiveEntry[], dir: string, imageBytes: (hash: string) => Promise<Buffer>): Promise<void> {
  const seen = new Set<string>();
  for (const { path: entryPath, body } of entries) {
    assert.ok(!entryPath.startsWith('/') && !entryPath.split('/').some((s) => s === '' || s === '.' || s === '..'), `entry path ${entryPath}`);
    assert.ok(!seen.has(entryPath.toLowerCase()), `two entries at ${entryPath}`);
    seen.add(entryPath.toLowerCase());
    const target = path.join(dir, ...entryPath.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (Buffer.isBuffer(body)) fs.writeFileSync(target, body);
    else if ('blobHash' in body) fs.writeFileSync(target, await imageBytes(body.blobHash));
    else {
      const out = fs.createWriteStream(target);
      for await (const chunk of body.stream()) if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    }
  }
}

/** The files under `dir`, as sorted `/`-separated relative paths. */
export function listFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => fs.statSync(path.join(dir, p)).isFile())
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

export const readText = (dir: string, rel: string): string => fs.readFileSync(path.join(dir, ...rel.split('/')), 'utf8');
export const readJson = <T = unknown>(dir: string, rel: string): T => JSON.parse(readText(dir, rel)) as T;
