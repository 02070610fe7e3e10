// What `annostore import DIR` sends: the files of the folder on disk (folder.ts), planned by
// folder-plan.ts, their text and bytes read from disk when the planners ask for them.
import fsp from 'node:fs/promises';
import type { FileSource } from './folder-files.ts';
import { type FolderPlan, planFolder } from './folder-plan.ts';
import { type FoundFile, cannotRead, listFolder } from './folder.ts';

export type FolderContent = FolderPlan<FoundFile>;

function sourceOf(found: readonly FoundFile[]): FileSource {
  const absolute = new Map(found.map((f) => [f.path, f.absolute]));
  return {
    async text(path) {
      try {
        return await fsp.readFile(absolute.get(path)!, 'utf8');
      } catch (error) {
        throw cannotRead(absolute.get(path)!, error);
      }
    },
    async stream(path) {
      // Opened here, so that a file that cannot be read says so rather than failing a parser midway.
      let handle;
      try {
        handle = await fsp.open(absolute.get(path)!, 'r');
      } catch (error) {
        throw cannotRead(absolute.get(path)!, error);
      }
      return handle.createReadStream();
    },
  };
}

/**
 * Lists what an import of `dir` sends. `preset` 1 to 5 chooses the format; without one (or 0) the
 * folder decides (see planFolder).
 */
export async function readFolder(dir: string, preset?: number): Promise<FolderContent> {
  const { root, found } = await listFolder(dir);
  return planFolder(root, found, sourceOf(found), preset);
}
