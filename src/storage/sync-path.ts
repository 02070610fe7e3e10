import fsp from 'node:fs/promises';

/**
 * Flushes a file's bytes, or a directory's entries, to disk: a rename must never publish an empty file,
 * nor a name that a crash could take back. Opened read-only, which fsync accepts for both.
 */
export async function syncPath(target: string): Promise<void> {
  const handle = await fsp.open(target, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
