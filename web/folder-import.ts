// A folder of images imported from the browser as a new project, the way `annostore import` does it:
// each file hashed here (Web Crypto), only the files the server lacks uploaded, then the import
// started. Images in subfolders go to a dataset of that subfolder's name, the others to `ds0`.
import { type Task, missingHashes, startImageImport, uploadImages } from './api.ts';

const IMAGE_NAME = /\.(jpe?g|png|webp|gif|bmp|tiff?)$/i;
/** A request's files: the server takes at most 100, and a few MB at a time keeps progress moving. */
const BATCH_FILES = 100;
const BATCH_BYTES = 32 * 1024 * 1024;
const HASH_CHECK = 10_000;

export interface ImportProgress {
  phase: 'hash' | 'upload' | 'start';
  done: number;
  total: number;
}

interface Picked {
  file: File;
  path: string;
  hash: string;
}

async function hashOf(file: File): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  let text = '';
  for (const byte of digest) text += String.fromCharCode(byte);
  return btoa(text);
}

/** The path an image takes in the project: below the folder chosen, `<dataset>/<name>` or `<name>`. */
function importPath(file: File): string {
  const parts = (file.webkitRelativePath || file.name).split('/');
  return (parts.length > 1 ? parts.slice(1) : parts).slice(-2).join('/');
}

/** The chosen folder's name (the project's title). */
export function folderName(files: File[]): string {
  return files[0]?.webkitRelativePath.split('/')[0] || 'Imported images';
}

export async function importFolder(files: File[], title: string, onProgress: (p: ImportProgress) => void): Promise<{ task: Task; uploaded: number; skipped: number }> {
  const images = files.filter((f) => IMAGE_NAME.test(f.name));
  if (images.length === 0) throw new Error('the folder holds no images (JPEG, PNG, WebP, GIF, BMP or TIFF)');
  const picked: Picked[] = [];
  for (const file of images) {
    picked.push({ file, path: importPath(file), hash: await hashOf(file) });
    onProgress({ phase: 'hash', done: picked.length, total: images.length });
  }
  const missing = new Set<string>();
  const hashes = [...new Set(picked.map((p) => p.hash))];
  for (let i = 0; i < hashes.length; i += HASH_CHECK) for (const hash of await missingHashes(hashes.slice(i, i + HASH_CHECK))) missing.add(hash);
  // One upload per missing hash: a picture twice in the folder is sent once.
  const toSend = [...new Map(picked.filter((p) => missing.has(p.hash)).map((p) => [p.hash, p])).values()];
  let sent = 0;
  onProgress({ phase: 'upload', done: 0, total: toSend.length });
  while (sent < toSend.length) {
    const batch: Picked[] = [];
    let bytes = 0;
    while (sent + batch.length < toSend.length && batch.length < BATCH_FILES && (batch.length === 0 || bytes + toSend[sent + batch.length]!.file.size <= BATCH_BYTES)) {
      const next = toSend[sent + batch.length]!;
      batch.push(next);
      bytes += next.file.size;
    }
    const results = await uploadImages(batch.map((p) => ({ path: p.path, hash: p.hash, file: p.file, name: p.file.name })));
    const refused = results.flatMap((r, i) => r.errors.map((e) => `${batch[i]!.path}: ${e.message}`));
    if (refused.length) throw new Error(`the server refused ${refused.length === 1 ? 'a file' : `${refused.length} files`}: ${refused.slice(0, 3).join('; ')}`);
    sent += batch.length;
    onProgress({ phase: 'upload', done: sent, total: toSend.length });
  }
  onProgress({ phase: 'start', done: 0, total: 1 });
  const task = await startImageImport(title, picked.map((p) => ({ hash: p.hash, path: p.path })));
  return { task, uploaded: toSend.length, skipped: picked.length - toSend.length };
}
