// The floors of bench/export.ts, each given the same entries an export of the project writes, in the
// same order and under the same names (each image blob read from the blob store's folder, each
// annotation file the same bytes, prepared before the clock starts), in the bench's process, with no
// database, no task and no HTTP:
// - our zip writer (src/formats/zip-archive.ts) writing them into a zip;
// - code that is not ours: Info-ZIP's `zip -0 -r -q` over a folder holding the same files, and a plain
//   read-and-write copy of the same bytes into one file.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Context } from '../src/context.ts';
import type { ArchiveEntry, ExportProject, FormatWriter } from '../src/formats/writer.ts';
import { SuperviselyWriter } from '../src/formats/supervisely/writer.ts';
import { ZipArchive, isCompressible } from '../src/formats/zip-archive.ts';
import * as exportRepo from '../src/repositories/export.repository.ts';

/** An entry of the floor's archive: bytes at hand (annotations, meta.json) or the file of an image blob. */
export interface FloorEntry {
  path: string;
  body: Buffer | { file: string };
}

/** Image blob reads in flight ahead of the entry being written (what the export allows itself). */
const AHEAD = 16;

/**
 * The entries of a Supervisely export of the project with its images, read through the export's own
 * repository and writer (untimed); `fileOf` names the file that holds a blob's bytes.
 */
export async function superviselyEntries(ctx: Context, projectId: number, fileOf: (hash: string) => string): Promise<FloorEntry[]> {
  return exportEntries(ctx, projectId, (project) => new SuperviselyWriter(project, { includeImages: true }), fileOf);
}

/**
 * The entries of an export of the project through `writerOf`'s writer, read through the export's own
 * repository (untimed); a streamed entry (COCO's annotation files) is read into memory here.
 */
export async function exportEntries(
  ctx: Context,
  projectId: number,
  writerOf: (project: ExportProject) => FormatWriter,
  fileOf: (hash: string) => string,
): Promise<FloorEntry[]> {
  const db = ctx.db.kysely;
  const project = await exportRepo.exportProject(db, projectId);
  if (!project) throw new Error(`no project ${projectId}`);
  const writer = writerOf(project);
  const entries: FloorEntry[] = [];
  const take = async (entry: ArchiveEntry) => {
    const body = entry.body;
    if (Buffer.isBuffer(body)) entries.push({ path: entry.path, body });
    else if ('blobHash' in body) entries.push({ path: entry.path, body: { file: fileOf(body.blobHash) } });
    else {
      const chunks: Buffer[] = [];
      for await (const chunk of body.stream()) chunks.push(chunk);
      entries.push({ path: entry.path, body: Buffer.concat(chunks) });
    }
  };
  try {
    for (const dataset of await exportRepo.exportDatasets(db, projectId, null)) {
      for (let after = 0; ; ) {
        const page = await exportRepo.imagePage(db, dataset, after, 1000);
        if (page.length === 0) break;
        for (const { record } of page) for (const entry of await writer.add(record)) await take(entry);
        after = page[page.length - 1]!.id;
      }
    }
    for (const entry of await writer.finish()) await take(entry);
  } finally {
    await writer.close();
  }
  return entries;
}

/**
 * Lays the entries out as files under `dir` (emptied first), untimed: each image a hard link to its
 * blob's file (the same bytes and the same page cache as the export reads; a copy where a link cannot
 * be made), each annotation file written.
 */
export function writeTree(entries: readonly FloorEntry[], dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const entry of entries) {
    const file = path.join(dir, entry.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (Buffer.isBuffer(entry.body)) fs.writeFileSync(file, entry.body);
    else {
      try {
        fs.linkSync(entry.body.file, file);
      } catch {
        fs.copyFileSync(entry.body.file, file);
      }
    }
  }
}

async function syncedSize(out: string): Promise<number> {
  const handle = await fsp.open(out, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  return (await fsp.stat(out)).size;
}

/**
 * Info-ZIP over the tree: `zip -0 -r -q out .` in `dir` (every entry stored, as the export stores the
 * images; the annotation files are stored too, where the export deflates them), then the archive
 * fsynced as the export's is.
 */
export async function infoZipFloor(dir: string, out: string): Promise<{ seconds: number; archiveBytes: number }> {
  fs.rmSync(out, { force: true });
  const started = process.hrtime.bigint();
  execFileSync('zip', ['-0', '-r', '-q', out, '.'], { cwd: dir, stdio: 'inherit' });
  const archiveBytes = await syncedSize(out);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, archiveBytes };
}

/**
 * A plain copy of the same bytes: each entry's file read whole (up to 16 ahead, as the export reads
 * blobs) and appended to one file, which is fsynced at the end. No archive format at all.
 */
export async function copyFloor(entries: readonly FloorEntry[], out: string): Promise<{ seconds: number; archiveBytes: number }> {
  fs.rmSync(out, { force: true });
  const started = process.hrtime.bigint();
  const handle = await fsp.open(out, 'w');
  try {
    const reads = new Map<number, Promise<Buffer>>();
    let next = 0;
    for (let i = 0; i < entries.length; i += 1) {
      for (; next < entries.length && next <= i + AHEAD; next += 1) {
        const body = entries[next]!.body;
        const read = Buffer.isBuffer(body) ? Promise.resolve(body) : fsp.readFile(body.file);
        read.catch(() => undefined);
        reads.set(next, read);
      }
      const bytes = await reads.get(i)!;
      reads.delete(i);
      await handle.write(bytes);
    }
  } finally {
    await handle.close();
  }
  const archiveBytes = await syncedSize(out);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, archiveBytes };
}

/** Writes the entries into `out` with our zip writer, then fsyncs it; answers the seconds and bytes. */
export async function floorArchive(entries: readonly FloorEntry[], out: string): Promise<{ seconds: number; archiveBytes: number }> {
  const started = process.hrtime.bigint();
  const archive = new ZipArchive();
  const file = fs.createWriteStream(out);
  const writing = pipeline(archive.output, file);
  writing.catch((error: unknown) => archive.fail(error as Error));
  const reads = new Map<number, Promise<Buffer>>();
  let next = 0;
  for (let i = 0; i < entries.length; i += 1) {
    for (; next < entries.length && next <= i + AHEAD; next += 1) {
      const body = entries[next]!.body;
      if (Buffer.isBuffer(body)) continue;
      const read = fsp.readFile(body.file);
      read.catch(() => undefined);
      reads.set(next, read);
    }
    const entry = entries[i]!;
    const read = reads.get(i);
    reads.delete(i);
    const bytes = read ? await read : (entry.body as Buffer);
    await archive.add({ path: entry.path, body: read ? async () => [bytes] : bytes, compress: isCompressible(entry.path) });
  }
  await archive.end();
  await writing;
  const handle = await fsp.open(out, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, archiveBytes: (await fsp.stat(out)).size };
}
