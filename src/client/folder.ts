// Reads an import folder: a Supervisely project (meta.json or classes.json at the root,
// <dataset>/img/<image>, <dataset>/ann/<image>.json) or a plain folder of images, one dataset per
// subfolder. Only regular files inside the folder are read: a link that leads out of it, or anything
// else that is not a file, stops the import before a byte is sent.
import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isImageName } from '../formats/supervisely/layout.ts';

export type FileKind = 'image' | 'annotation' | 'class';

export interface FolderFile {
  /** Path inside the folder, with forward slashes: the `path` of the import. */
  path: string;
  /** Where to read it. */
  absolute: string;
  size: number;
  kind: FileKind;
}

export interface FolderContent {
  root: string;
  format: 'supervisely' | 'images';
  /** The preset the import is started with: 1 Supervisely, 2 images only. */
  preset: 1 | 2;
  files: FolderFile[];
  /** Files that are neither images, annotations nor the class file (left out). */
  ignored: string[];
}

/** The folder is not something we can import, or a file of it cannot be read. */
export class FolderError extends Error {
  override readonly name = 'FolderError';
}

const META_FILES = ['meta.json', 'classes.json'];

interface Found {
  path: string;
  absolute: string;
  size: number;
}

async function walk(root: string, realRoot: string): Promise<Found[]> {
  const found: Found[] = [];
  const problems: string[] = [];
  const visit = async (dir: string, rel: string) => {
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (error) {
      problems.push(`${rel || '.'}: cannot read the folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue; // .git, .DS_Store and the like
      const absolute = path.join(dir, entry.name);
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        await visit(absolute, relPath);
      } else if (entry.isFile()) {
        found.push({ path: relPath, absolute, size: (await fsp.stat(absolute)).size });
      } else if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = await fsp.realpath(absolute);
        } catch {
          problems.push(`${relPath}: a link to nothing`);
          continue;
        }
        if (!target.startsWith(realRoot + path.sep)) {
          problems.push(`${relPath}: a link that leads out of the folder (to ${target})`);
          continue;
        }
        const stat = await fsp.stat(target);
        if (!stat.isFile()) problems.push(`${relPath}: a link to something that is not a regular file`);
        else found.push({ path: relPath, absolute: target, size: stat.size });
      } else {
        problems.push(`${relPath}: not a regular file`);
      }
    }
  };
  await visit(root, '');
  if (problems.length > 0) {
    const shown = problems.slice(0, 10).join('\n  ');
    const more = problems.length > 10 ? `\n  … and ${problems.length - 10} more` : '';
    throw new FolderError(`refusing to import ${root}:\n  ${shown}${more}`);
  }
  return found;
}

function classifySupervisely(p: string): FileKind | null {
  const parts = p.split('/');
  if (parts.length === 2) return isImageName(parts[1]!) ? 'image' : null;
  if (parts.length !== 3) return null;
  if (parts[1] === 'img' && isImageName(parts[2]!)) return 'image';
  if (parts[1] === 'ann' && parts[2]!.toLowerCase().endsWith('.json') && parts[2]!.length > 5) return 'annotation';
  return null;
}

function classifyImages(p: string): FileKind | null {
  const parts = p.split('/');
  const name = parts[parts.length - 1]!;
  if (!isImageName(name)) return null;
  if (parts.length <= 2 || (parts.length === 3 && parts[1] === 'img')) return 'image';
  return null;
}

/**
 * Lists what an import of `dir` sends. `preset` 1 insists on a Supervisely project, 2 takes the images
 * alone; without one (or 0) the folder decides: a class file at the root makes it Supervisely.
 */
export async function readFolder(dir: string, preset?: number): Promise<FolderContent> {
  const root = path.resolve(dir);
  let stat;
  try {
    stat = await fsp.stat(root);
  } catch (error) {
    throw new FolderError(`${root} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!stat.isDirectory()) throw new FolderError(`${root} is not a folder`);
  const found = await walk(root, await fsp.realpath(root));

  const metaPath = META_FILES.find((name) => found.some((f) => f.path === name));
  if (preset === 1 && !metaPath) {
    throw new FolderError(`${root} is not a Supervisely project: no meta.json or classes.json at its root (for a folder of images use --preset 2)`);
  }
  const format = preset === 2 || !metaPath ? 'images' : 'supervisely';
  const files: FolderFile[] = [];
  const ignored: string[] = [];
  for (const f of found) {
    const kind = format === 'images' ? classifyImages(f.path) : f.path === metaPath ? 'class' : classifySupervisely(f.path);
    if (kind) files.push({ ...f, kind });
    else ignored.push(f.path);
  }
  if (!files.some((f) => f.kind === 'image')) {
    throw new FolderError(
      `${root} is not a project: no images found (expected meta.json with <dataset>/img/<image> and <dataset>/ann/<image>.json, or image files in subfolders)`,
    );
  }
  return { root, format, preset: format === 'supervisely' ? 1 : 2, files, ignored };
}

/** Read buffers for hashing, reused: hashing a folder allocates nothing per file for the GC to collect. */
const hashBuffers: Buffer[] = [];
const HASH_BUFFER_BYTES = 1 << 20;

/** base64 of the SHA-256 of the file, read through a reused buffer. */
export async function hashFile(file: string, onBytes?: (n: number) => void): Promise<string> {
  const hash = createHash('sha256');
  const buffer = hashBuffers.pop() ?? Buffer.allocUnsafe(HASH_BUFFER_BYTES);
  try {
    const handle = await fsp.open(file, 'r');
    try {
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        onBytes?.(bytesRead);
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new FolderError(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  } finally {
    hashBuffers.push(buffer);
  }
  return hash.digest('base64');
}

/** Files up to this size are read into memory to be sent; larger ones stream from disk. */
export const IN_MEMORY_BYTES = 8 * 1024 * 1024;

/** The bytes to send of a file: in memory when small, else a Blob read from disk as it is sent. */
export async function fileContent(file: FolderFile): Promise<Buffer | Blob> {
  try {
    return file.size <= IN_MEMORY_BYTES ? await fsp.readFile(file.absolute) : await openAsBlob(file.absolute);
  } catch (error) {
    throw new FolderError(`${file.absolute} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
