// How the files of an import are grouped into upload requests, by `annostore import` and the web
// interface alike.

/** Files in one upload request: the server takes at most 100 (uploadFilesPerRequest). */
export const BATCH_FILES = 100;
/** Bytes of one upload request, beyond which it is closed early (what a request holds in memory). */
export const BATCH_BYTES = 32 * 1024 * 1024;

/** Requests of at most `maxFiles` files and about `maxBytes`; a group (an image and its annotation) is never split. */
export function uploadBatches<F extends { size: number }>(groups: readonly F[][], maxFiles = BATCH_FILES, maxBytes = BATCH_BYTES): F[][] {
  const out: F[][] = [];
  let current: F[] = [];
  let size = 0;
  for (const group of groups) {
    const groupSize = group.reduce((sum, f) => sum + f.size, 0);
    if (current.length > 0 && (current.length + group.length > maxFiles || size + groupSize > maxBytes)) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(...group);
    size += groupSize;
  }
  if (current.length > 0) out.push(current);
  return out;
}
