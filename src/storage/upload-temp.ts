// Where uploads wait while a request runs (DATA_DIR/tmp/uploads), and the start-up cleanup of folders
// that a process killed mid-request left behind. Nothing there outlives a request otherwise.
import path from 'node:path';
import type { Config } from '../config.ts';
import { removeStaleFolders } from './staging.ts';

/** An upload folder untouched this long can only be a leftover of a process that died mid-request. */
export const STALE_UPLOAD_MS = 60 * 60 * 1000;

export function uploadTempRoot(config: Config): string {
  return path.join(config.dataDir, 'tmp', 'uploads');
}

export async function removeStaleUploads(config: Config, log: { info(obj: object, msg: string): void }): Promise<number> {
  const removed = await removeStaleFolders(uploadTempRoot(config), STALE_UPLOAD_MS);
  if (removed) log.info({ removed }, 'removed stale upload folders');
  return removed;
}
