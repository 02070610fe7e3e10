// The floor of bench/export.ts: our zip writer (src/formats/zip-archive.ts) writing the same entries an
// export of the project writes, in the same order and under the same names: each image blob read from
// the blob store's folder, each annotation the same JSON bytes, prepared in memory before the clock
// starts. In the bench's process, with no database, no task and no HTTP.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Context } from '../src/context.ts';
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
  const db = ctx.db.kysely;
  const project = await exportRepo.exportProject(db, projectId);
  if (!project) throw new Error(`no project ${projectId}`);
  const writer = new SuperviselyWriter(project, { includeImages: true });
  const entries: FloorEntry[] = [];
  for (const dataset of await exportRepo.exportDatasets(db, projectId, null)) {
    for (let after = 0; ; ) {
      const page = await exportRepo.imagePage(db, dataset, after, 1000);
      if (page.length === 0) break;
      for (const { record } of page) {
        for (const entry of await writer.add(record)) {
          const body = entry.body;
          if (Buffer.isBuffer(body)) entries.push({ path: entry.path, body });
          else if ('blobHash' in body) entries.push({ path: entry.path, body: { file: fileOf(body.blobHash) } });
          else throw new Error(`unexpected streamed entry ${entry.path}`);
        }
      }
      after = page[page.length - 1]!.id;
    }
  }
  for (const entry of await writer.finish()) entries.push({ path: entry.path, body: entry.body as Buffer });
  return entries;
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
