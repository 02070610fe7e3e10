// A folder imported from the browser, the way `annostore import` does it and with its planners
// (src/client/folder-plan.ts): the folder's format found and its files chosen from the dropped
// files' paths (and the text of the few files a format needs read), each image hashed here (Web
// Crypto), only the images the server lacks uploaded with their annotation files, then the import
// started into a new project or one the user picked.
import { FolderError } from '../src/client/folder-error.ts';
import type { FileSource } from '../src/client/folder-files.ts';
import { FORMAT_NAMES, type FormatChoice } from '../src/client/folder-format.ts';
import { type FolderPlan, type ListedFile, type Planned, planFolder } from '../src/client/folder-plan.ts';
import { uploadBatches } from '../src/client/upload-batches.ts';
import { mapLimited } from '../src/concurrency.ts';
import { type ImportBody, type RateLimitWait, type Task, type UploadedFile, missingHashes, startImport, uploadImportFiles } from './api.ts';

/**
 * What the form takes. The server takes up to 2,000,000 files in one import and files of up to
 * UPLOAD_FILE_BYTES (1 GB by default); a browser tab is the narrower limit: every file listed is held
 * as a File, and Web Crypto hashes a file only whole, in memory. Larger folders go with
 * `annostore import`.
 */
export const LIMITS = {
  files: 100_000,
  bytes: 50 * 1024 ** 3,
  fileBytes: 1024 ** 3,
} as const;
/** Images hashed at once (each is read whole into memory), and upload requests in flight. */
const HASHING = 4;
const UPLOADING = 3;
/** Images hashed before their hashes are checked and the missing ones sent (fewer than the server's checkHashes). */
const CHUNK = 400;

/** A file of the dropped folder, by its path inside the folder. */
export interface DroppedFile extends ListedFile {
  file: File;
}

export interface DroppedFolder {
  /** The folder's name: the project's title unless the user changes it. */
  name: string;
  files: DroppedFile[];
}

export type ImportPlan = FolderPlan<DroppedFile>;

export interface ImportProgress {
  /** Images hashed, of `images`. */
  hashed: number;
  images: number;
  /** Files uploaded, of those `queued` so far (the images the server lacks, with their annotation files). */
  uploaded: number;
  queued: number;
  /** Every file is sent; the import is being started. */
  starting: boolean;
  /** Seconds the longest current wait for the server's rate limit (429) lasts; 0: none. */
  rateLimitWait: number;
}

const size = (bytes: number) => (bytes < 1024 ** 2 ? `${Math.ceil(bytes / 1024)} KB` : bytes < 1024 ** 3 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${(bytes / 1024 ** 3).toFixed(1)} GB`);

/** Refuses a folder the form cannot take, before any file is read. */
function checkLimits(count: number, bytes: number, largest?: DroppedFile): void {
  if (count > LIMITS.files) throw new FolderError(`the folder holds more than ${LIMITS.files.toLocaleString('en')} files: import it with annostore import`);
  if (bytes > LIMITS.bytes) throw new FolderError(`the folder holds ${size(bytes)}, more than the ${size(LIMITS.bytes)} the browser takes: import it with annostore import`);
  if (largest && largest.size > LIMITS.fileBytes) throw new FolderError(`${largest.path} is ${size(largest.size)}, more than the ${size(LIMITS.fileBytes)} a file may be here`);
}

/**
 * The folder of these files, given by their paths below what was chosen or dropped. One folder
 * (every path starts with it) gives its name and the paths inside it; loose files keep their paths.
 * Hidden files and folders (.git, .DS_Store) are passed over, as `annostore import` passes them over.
 */
function folderOf(entries: { path: string; file: File }[]): DroppedFolder {
  const visible = entries.filter((e) => !e.path.split('/').some((part) => part.startsWith('.')));
  const first = visible[0]?.path.split('/')[0] ?? '';
  const oneFolder = visible.length > 0 && visible.every((e) => e.path.startsWith(`${first}/`));
  const files = visible.map((e) => ({ path: oneFolder ? e.path.slice(first.length + 1) : e.path, size: e.file.size, file: e.file }));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  checkLimits(
    files.length,
    files.reduce((sum, f) => sum + f.size, 0),
    files.reduce<DroppedFile | undefined>((big, f) => (big && big.size >= f.size ? big : f), undefined),
  );
  if (files.length === 0) throw new FolderError('the folder holds no files');
  return { name: oneFolder ? first : 'Imported files', files };
}

/** The folder chosen with <input type=file webkitdirectory>: each file knows its path below it. */
export function chosenFolder(files: readonly File[]): DroppedFolder {
  return folderOf(files.map((file) => ({ path: file.webkitRelativePath || file.name, file })));
}

/**
 * What was dropped, taken at once: a DataTransfer's items can be read only while its drop event is
 * being handled. Folders are read afterwards by droppedFolder.
 */
export function droppedEntries(data: DataTransfer): (FileSystemEntry | File)[] {
  const entries: (FileSystemEntry | File)[] = [];
  for (const item of data.items) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.();
    const file = entry ? null : item.getAsFile();
    if (entry) entries.push(entry);
    else if (file) entries.push(file);
  }
  return entries;
}

const fileOf = (entry: FileSystemFileEntry) => new Promise<File>((resolve, reject) => entry.file(resolve, reject));
const entriesOf = (reader: FileSystemDirectoryReader) => new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));

/** The files of what was dropped, folders walked to the end (each answers a few entries at a time). */
export async function droppedFolder(dropped: (FileSystemEntry | File)[]): Promise<DroppedFolder> {
  const found: { path: string; file: File }[] = [];
  const visit = async (entry: FileSystemEntry): Promise<void> => {
    if (entry.name.startsWith('.')) return;
    if (entry.isFile) {
      found.push({ path: entry.fullPath.replace(/^\//, ''), file: await fileOf(entry as FileSystemFileEntry) });
      checkLimits(found.length, 0);
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      for (let batch = await entriesOf(reader); batch.length > 0; batch = await entriesOf(reader)) for (const child of batch) await visit(child);
    }
  };
  for (const item of dropped) {
    if (item instanceof File) found.push({ path: item.name, file: item });
    else await visit(item);
  }
  return folderOf(found);
}

async function* bytesOf(file: Blob): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) yield chunk.value;
  } finally {
    // A reader that stops early (a results list is known by its first byte) reads no further.
    await reader.cancel();
  }
}

/** The form's Format field, where the folder cannot decide its format (see planImport). */
const formatField: FormatChoice = (formats) => {
  const found = formats.filter((f) => f !== 'images');
  if (found.length === 0) return 'to import the images alone choose "folder of images" as the format';
  return `choose one as the format (${found.map((f) => FORMAT_NAMES[f]).join(', ')}), or "folder of images" for the images alone`;
};

/**
 * What an import of the folder sends, planned as `annostore import` plans it: `preset` 1 to 5
 * chooses the format, 0 lets the folder decide. Throws FolderError when the folder gives nothing to
 * import, with what was looked for.
 */
export function planImport(folder: DroppedFolder, preset = 0): Promise<ImportPlan> {
  const byPath = new Map(folder.files.map((f) => [f.path, f.file]));
  const source: FileSource = {
    text: (path) => byPath.get(path)!.text(),
    stream: async (path) => bytesOf(byPath.get(path)!),
  };
  return planFolder(folder.name, folder.files, source, preset, formatField);
}

/** What the plan sends, in numbers for the form to show. */
export function planCounts(plan: ImportPlan): { images: number; imageBytes: number; others: number; ignored: number } {
  const images = plan.files.filter((f) => f.kind === 'image');
  return { images: images.length, imageBytes: images.reduce((sum, f) => sum + f.size, 0), others: plan.files.length - images.length, ignored: plan.ignored.length };
}

async function hashOf(file: Blob): Promise<string> {
  // Web Crypto is there only for a secure page: HTTPS, or the machine itself (localhost, 127.0.0.1).
  if (!crypto.subtle) throw new Error('this page cannot hash files: browsers give Web Crypto only to pages served over HTTPS or from localhost. Open the interface that way, or import with annostore import');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  let text = '';
  for (const byte of digest) text += String.fromCharCode(byte);
  return btoa(text);
}

export interface ImportStarted {
  task: Task;
  /** Images sent, and images the server already had (not sent). */
  uploaded: number;
  skipped: number;
  /** Class and annotation files sent (they are always sent: the import names them by upload). */
  documents: number;
}

type Sent = Planned<DroppedFile>;

/** Where an import goes: a new project of a title, or a project there is, with what to do about an image name it has already. */
export type ImportTarget = { title: string } | { projectId: number; onConflict: 'ignore' | 'replace' | 'rename' };

/**
 * Hashes the plan's images, uploads those the server lacks with the files read for them alone, then
 * the other class and annotation files, and starts the import into the target project.
 */
export async function runImport(plan: ImportPlan, target: ImportTarget, onProgress: (p: ImportProgress) => void): Promise<ImportStarted> {
  const images = plan.files.filter((f) => f.kind === 'image');
  const documents = plan.files.filter((f) => f.kind !== 'image');
  const progress: ImportProgress = { hashed: 0, images: images.length, uploaded: 0, queued: 0, starting: false, rateLimitWait: 0 };
  const report = () => onProgress({ ...progress });
  report();
  // Several requests may wait at once: the form shows the longest wait of those still waiting.
  const waiting = new Map<symbol, number>();
  const waitReporter = (): RateLimitWait => {
    const me = Symbol('request');
    return (seconds) => {
      if (seconds > 0) waiting.set(me, seconds);
      else waiting.delete(me);
      progress.rateLimitWait = Math.max(0, ...waiting.values());
      report();
    };
  };

  const hashes = new Map<Sent, string>();
  const fileIds = new Map<Sent, string>();
  const refused: string[] = [];
  const upload = (batches: Sent[][]) =>
    mapLimited(batches, UPLOADING, async (batch) => {
      const parts = batch.map((f) => ({
        metadata: { id: f.path, type: f.kind, format: plan.format, ...(f.kind === 'image' ? { hash: hashes.get(f)! } : {}) },
        file: f.file,
        name: f.file.name,
      }));
      const results: UploadedFile[] = await uploadImportFiles(parts, waitReporter());
      results.forEach((result, i) => {
        const f = batch[i]!;
        for (const e of result.errors) refused.push(`${f.path}: ${e.message}`);
        if (result.errors.length === 0 && f.kind !== 'image') fileIds.set(f, result.fileId!);
      });
      progress.uploaded += batch.length;
      report();
    });

  // A chunk of images is hashed while the missing ones of the chunk before are uploaded, so a large
  // folder starts sending soon and holds no more than two chunks' work at once. One upload per
  // missing content, however many paths share it; an image travels with its own annotation files,
  // and a file shared by two images goes with the first.
  const queued = new Set<string>();
  const sent = new Set<Sent>();
  let uploaded = 0;
  let uploading: Promise<unknown> = Promise.resolve();
  for (let start = 0; start < images.length; start += CHUNK) {
    const chunk = images.slice(start, start + CHUNK);
    await mapLimited(chunk, HASHING, async (image) => {
      hashes.set(image, await hashOf(image.file));
      progress.hashed += 1;
      report();
    });
    const fresh = [...new Set(chunk.map((f) => hashes.get(f)!))].filter((h) => !queued.has(h));
    const missing = new Set(fresh.length > 0 ? await missingHashes(fresh, waitReporter()) : []);
    const groups: Sent[][] = [];
    for (const image of chunk) {
      const hash = hashes.get(image)!;
      if (!missing.has(hash) || queued.has(hash)) continue;
      queued.add(hash);
      const group = [image, ...(plan.companions.get(image) ?? []).filter((f) => !sent.has(f))];
      for (const f of group) sent.add(f);
      groups.push(group);
    }
    uploaded += groups.length;
    progress.queued += groups.reduce((sum, g) => sum + g.length, 0);
    await uploading;
    uploading = upload(uploadBatches(groups));
    // Awaited at the next chunk or after the last; until then a failure must not go unheard.
    uploading.catch(() => undefined);
  }
  await uploading;
  const rest = documents.filter((f) => !sent.has(f));
  progress.queued += rest.length;
  await upload(uploadBatches(rest.map((f) => [f])));
  if (refused.length > 0) throw new Error(`the server refused ${refused.length === 1 ? 'a file' : `${refused.length} files`}: ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? '; …' : ''}`);

  progress.starting = true;
  report();
  const body: ImportBody = {
    ...('projectId' in target ? { project: { id: target.projectId }, onConflict: target.onConflict } : { project: { id: null, title: target.title } }),
    preset: plan.preset,
    files: [...documents.map((f) => ({ fileId: fileIds.get(f)!, path: f.path })), ...images.map((f) => ({ hash: hashes.get(f)!, path: f.path }))],
  };
  const task = await startImport(body, waitReporter());
  return { task, uploaded, skipped: images.length - uploaded, documents: documents.length };
}
