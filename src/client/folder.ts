// Reads an import folder's files. Only regular files inside the folder are read: a link that leads out
// of it, or anything else that is not a file, stops the import before a byte is sent.
import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { FolderError } from './folder-error.ts';
import type { ListedFile, Planned } from './folder-plan.ts';

export { FolderError } from './folder-error.ts';
export type { FileKind } from './folder-files.ts';

/** A file of the folder on disk, before the import has chosen it. */
export interface FoundFile extends ListedFile {
  /** Where to read it. */
  absolute: string;
}

/** A file the import sends, with where to read it. */
export type FolderFile = Planned<FoundFile>;

/** The FolderError of a file or folder that cannot be read, with the system's reason. */
export function cannotRead(what: string, error: unknown): FolderError {
  return new FolderError(`${what} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
}

async function walk(root: string, realRoot: string): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
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

/** Every regular file of the folder `dir`, by path inside it, in the order of a sorted walk. */
export async function listFolder(dir: string): Promise<{ root: string; found: FoundFile[] }> {
  const root = path.resolve(dir);
  let stat;
  try {
    stat = await fsp.stat(root);
  } catch (error) {
    throw cannotRead(root, error);
  }
  if (!stat.isDirectory()) throw new FolderError(`${root} is not a folder`);
  return { root, found: await walk(root, await fsp.realpath(root)) };
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
    throw cannotRead(file, error);
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
    throw cannotRead(file.absolute, error);
  }
}
