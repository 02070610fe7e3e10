// The archive of an export task: the zip streamed into the archive store, published only when it is
// whole, and the folder where the writers spool, cleared of what dead workers left there.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ZipArchive } from '../../formats/zip-archive.ts';
import { removeStaleFolders } from '../../storage/staging.ts';
import type { TaskRun } from '../handler.ts';

const STALE_SPOOL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Removes what an earlier attempt of this task may have published, while this run still holds the
 * task: a worker whose lease ran out unnoticed (a hung request) must not delete the archive another
 * worker has since written and finished.
 */
async function removeOwnArchive(run: TaskRun, key: string): Promise<void> {
  try {
    await run.ctx.db.kysely.transaction().execute(async (trx) => {
      await run.fenceLease(trx);
      await run.ctx.archives.delete(key);
    });
  } catch {
    // The lease is gone (the archive is another worker's now), or the store did not answer: the
    // task's failure is what the caller must hear of, not this.
  }
}

/** The folder of the writers' spools, with what a dead worker left there cleared out. */
export async function exportSpool(run: TaskRun): Promise<string> {
  // The writers' spools live where the process keeps its temporary files (DATA_DIR/tmp), not in the
  // system's temporary folder, which may be a small RAM disk.
  const spool = path.join(run.ctx.config.dataDir, 'tmp', 'exports');
  await fsp.mkdir(spool, { recursive: true });
  // What a worker that died mid-export left there. A week untouched: an export still writing a spool
  // that old (in another process sharing DATA_DIR) is not to be expected.
  await removeStaleFolders(spool, STALE_SPOOL_MS);
  return spool;
}

/**
 * Streams a zip into the archive store under `key`: `write` fills it, and answers the meta to record
 * once the archive is stored. A failure leaves no archive from this attempt.
 */
export async function intoArchive(
  run: TaskRun,
  key: string,
  spool: string,
  options: { mtime?: Date },
  write: (archive: ZipArchive) => Promise<() => Record<string, unknown>>,
): Promise<void> {
  // The zip's central directory spools here past a few megabytes; the folder goes with the task.
  const zipSpool = await fsp.mkdtemp(path.join(spool, 'zip-'));
  const archive = new ZipArchive({ spoolDir: zipSpool, ...options });
  const storing = run.ctx.archives.put(key, archive.output);
  // A store that fails before it has read everything would leave the writer waiting for a reader:
  // its failure ends the archive, and the writer's next step throws it.
  storing.catch((error: unknown) => archive.fail(error instanceof Error ? error : new Error(String(error))));
  try {
    const meta = await write(archive);
    const stat = await storing;
    await run.updateMeta({ ...meta(), archive: { size: stat.size } });
  } catch (error) {
    archive.fail(error instanceof Error ? error : new Error(String(error)));
    await storing.catch(() => undefined);
    await removeOwnArchive(run, key);
    throw error;
  } finally {
    await fsp.rm(zipSpool, { recursive: true, force: true });
  }
}
