// `annostore import DIR`: reads the folder, hashes the images, asks the server which ones it lacks,
// uploads only those (plus the class and annotation files, which the import names by fileId), starts
// the import task and follows it. Running it again after an interrupt sends no image twice: the
// server's answer to check-images is the resume point.
import path from 'node:path';
import { mapLimited } from '../concurrency.ts';
import { type AnnostoreClient, type ImportBody, type ImportFileRef, type OnConflictT, type TaskT, type UploadFile } from './client.ts';
import { readFolder } from './folder-content.ts';
import { FORMAT_NAMES } from './folder-format.ts';
import { type FolderFile, fileContent, hashFile } from './folder.ts';
import { type Progress, bytes } from './progress.ts';
import { BATCH_BYTES, BATCH_FILES, uploadBatches } from './upload-batches.ts';

export interface ImportFolderOptions {
  dir: string;
  /** An existing project by id, or a project by title (the folder's name when neither is given). */
  project?: { id: number } | { title: string };
  onConflict?: OnConflictT;
  /** 0 or none: decided by the folder; 1 Supervisely; 2 images only; 3 COCO; 4 Pascal VOC; 5 YOLO. */
  preset?: number;
  /** Upload requests in flight. */
  concurrency?: number;
  /** Files per upload request (the server takes at most 100). */
  batchFiles?: number;
  /** Bytes per upload request, beyond which a request is closed early (what a request holds in memory). */
  batchBytes?: number;
  progress: Progress;
  /** How often the task is polled, in ms. */
  pollMs?: number;
}

export interface ImportSummary {
  /** Files sent or checked: the images and the files the format's import reads. */
  files: number;
  /** The folder's other files, left out. */
  filesIgnored: number;
  imagesUploaded: number;
  /** Images not sent because the server already stores their content. */
  imagesSkipped: number;
  bytesUploaded: number;
  imageBytesUploaded: number;
  taskId: number;
  status: string;
  projectId: number | null;
  seconds: number;
  error?: { code: string; message: string };
  /** What the import left out or could not read, file by file: the first ones the server kept. */
  warnings: { path: string; message: string }[];
  /** Warnings beyond those listed. */
  moreWarnings: number;
}

/** Some files were refused by the server (not an image it can decode, not valid JSON of the format…). */
export class UploadRejectedError extends Error {
  override readonly name = 'UploadRejectedError';
  constructor(readonly rejected: { path: string; code: string; message: string }[]) {
    const shown = rejected.slice(0, 10).map((r) => `${r.path}: ${r.code} ${r.message}`);
    if (rejected.length > 10) shown.push(`… and ${rejected.length - 10} more`);
    super(`the server refused ${rejected.length} file${rejected.length === 1 ? '' : 's'}:\n  ${shown.join('\n  ')}`);
  }
}

/** The options do not make sense for this server (several projects of the title, say). */
export class ImportUsageError extends Error {
  override readonly name = 'ImportUsageError';
}

const CHECK_CHUNK = 10_000;

async function resolveProject(client: AnnostoreClient, option: ImportFolderOptions['project'], root: string): Promise<ImportBody['project']> {
  if (option && 'id' in option) {
    const [project] = await client.listProjects({ projectId: option.id });
    if (!project) throw new ImportUsageError(`there is no project ${option.id} (for this key)`);
    return { id: project.id };
  }
  const title = option?.title ?? path.basename(root);
  // Importing into the project of that title makes a second run continue the first one.
  const same = (await client.listProjects()).filter((p) => p.title === title.trim());
  if (same.length > 1) {
    throw new ImportUsageError(`${same.length} projects are titled "${title}" (ids ${same.map((p) => p.id).join(', ')}): choose one with --project-id`);
  }
  return same.length === 1 ? { id: same[0]!.id } : { id: null, title };
}

export async function importFolder(client: AnnostoreClient, options: ImportFolderOptions): Promise<ImportSummary> {
  const started = Date.now();
  const { progress } = options;
  const state = progress.state;
  const concurrency = options.concurrency ?? 4;

  progress.phase('scan', `reading ${path.resolve(options.dir)}`);
  const folder = await readFolder(options.dir, options.preset);
  const images = folder.files.filter((f) => f.kind === 'image');
  const documents = folder.files.filter((f) => f.kind !== 'image');
  state.files = images.length;
  state.imageBytes = images.reduce((sum, f) => sum + f.size, 0);
  const project = await resolveProject(client, options.project, folder.root);
  progress.note(
    `${FORMAT_NAMES[folder.format]}: ${images.length} images (${bytes(state.imageBytes)}), ` +
      `${documents.length} class and annotation files${folder.ignored.length ? `, ${folder.ignored.length} other files left out` : ''}; ` +
      `into ${project.id === null ? `a new project "${project.title}"` : `project ${project.id}`}`,
  );
  for (const note of folder.notes) progress.note(note);

  // A pipeline: images are hashed a chunk at a time, each chunk's missing hashes are asked for, and
  // its missing images go into upload requests while the next chunk is hashed. The first chunk is
  // small, so the first request leaves soon. An image travels with its annotation file, so the
  // annotations do not queue up behind the last image; the other class and annotation files go
  // last. Once a request has answered, its images are stored for good, so an interrupted run has
  // always made progress that the next one keeps.
  progress.phase('hash', `hashing ${images.length} images and uploading those the server lacks, ${concurrency} requests at a time`);
  const hashes = new Map<FolderFile, string>();
  const queued = new Set<string>();
  let imagesUploaded = 0;
  let imageBytesUploaded = 0;
  const maxFiles = Math.min(BATCH_FILES, options.batchFiles ?? BATCH_FILES);
  // Within the server's upload burst once it is known: a request past it is admitted on a full
  // bucket but leaves the key in debt, and with 32 MiB batches under a low limit the next one would
  // be told to wait minutes (longer than the client waits out).
  const maxBytes = () => Math.min(options.batchBytes ?? BATCH_BYTES, client.uploadBurstBytes ?? Infinity);
  const chunkSize = Math.min(CHECK_CHUNK, Math.max(maxFiles * concurrency, 400));
  const sent = new Set<FolderFile>();
  const queue = (files: readonly FolderFile[]) => {
    for (const f of files) sent.add(f);
    state.uploadFiles += files.length;
    state.uploadBytes += files.reduce((sum, f) => sum + f.size, 0);
  };
  async function* requests(): AsyncGenerator<FolderFile[]> {
    for (let start = 0, size = Math.min(chunkSize, maxFiles); start < images.length; start += size, size = chunkSize) {
      const chunk = images.slice(start, start + size);
      await mapLimited(chunk, 4, async (file) => {
        hashes.set(file, await hashFile(file.absolute, (n) => {
          state.hashedBytes += n;
        }));
        state.hashedFiles += 1;
        progress.update();
      });
      const fresh = [...new Set(chunk.map((f) => hashes.get(f)!))].filter((h) => !queued.has(h));
      const missing = new Set(fresh.length > 0 ? await client.checkImages(fresh) : []);
      // One upload per missing content, however many paths share it.
      const toUpload: FolderFile[] = [];
      for (const file of chunk) {
        const hash = hashes.get(file)!;
        if (missing.has(hash) && !queued.has(hash)) {
          queued.add(hash);
          toUpload.push(file);
        }
      }
      imagesUploaded += toUpload.length;
      for (const f of toUpload) imageBytesUploaded += f.size;
      // A file that belongs to two images (x.jpg and x.png share x.txt) goes with the first.
      const groups = toUpload.map((image) => {
        const group = [image, ...(folder.companions.get(image) ?? []).filter((f) => !sent.has(f))];
        queue(group);
        return group;
      });
      if (state.phase === 'hash' && toUpload.length > 0) state.phase = 'upload';
      yield* uploadBatches(groups, maxFiles, maxBytes());
    }
    state.phase = 'upload';
    const rest = documents.filter((f) => !sent.has(f));
    queue(rest);
    yield* uploadBatches(rest.map((f) => [f]), maxFiles, maxBytes());
  }

  const fileIds = new Map<string, string>();
  const rejected: UploadRejectedError['rejected'] = [];
  const format = folder.format;
  const upload = async (batch: FolderFile[]) => {
    const parts: UploadFile[] = await Promise.all(
      batch.map(async (file) => ({
        metadata: { id: file.path, type: file.kind, format, ...(file.kind === 'image' ? { hash: hashes.get(file)! } : {}) },
        content: await fileContent(file),
        filename: path.posix.basename(file.path),
      })),
    );
    const results = await client.uploadFiles(parts);
    results.forEach((result, i) => {
      const file = batch[i]!;
      if (result.errors.length > 0) {
        for (const e of result.errors) rejected.push({ path: file.path, code: e.code, message: e.message });
      } else if (file.kind !== 'image') {
        fileIds.set(file.path, result.fileId!);
      }
    });
    state.uploadedFiles += batch.length;
    state.uploadedBytes += batch.reduce((sum, f) => sum + f.size, 0);
    progress.update();
  };
  // The workers share one generator: while some upload, the next one's pull hashes and checks ahead.
  const source = requests();
  let failed = false;
  const worker = async () => {
    while (!failed) {
      const next = await source.next();
      if (next.done) return;
      try {
        await upload(next.value);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  progress.note(`${images.length - imagesUploaded} images were already stored; uploaded ${imagesUploaded} (${bytes(imageBytesUploaded)}) and ${documents.length} class and annotation files`);
  if (rejected.length > 0) throw new UploadRejectedError(rejected);

  const files: ImportFileRef[] = [
    ...documents.map((f) => ({ fileId: fileIds.get(f.path)!, path: f.path })),
    ...images.map((f) => ({ hash: hashes.get(f)!, path: f.path })),
  ];
  const body: ImportBody = { project, preset: folder.preset, files, ...(options.onConflict ? { onConflict: options.onConflict } : {}) };
  const { taskId } = await client.startImport(body);
  state.taskTotal = images.length;
  progress.phase('import', `import task ${taskId} started`);
  const task: TaskT = await client.waitForTask(taskId, {
    intervalMs: options.pollMs ?? 500,
    firstIntervalMs: 50,
    onUpdate: (t) => {
      const p = (t.meta as { progress?: { done: number; total: number } }).progress;
      state.taskStatus = t.status;
      if (p) {
        state.taskDone = p.done;
        state.taskTotal = p.total;
      }
      progress.update();
    },
  });
  progress.stop();
  const meta = task.meta as { project?: { id?: number }; error?: { code: string; message: string }; warnings?: { path?: string; message?: string }[]; moreWarnings?: number };
  const warnings = (Array.isArray(meta.warnings) ? meta.warnings : []).map((w) => ({ path: String(w.path ?? ''), message: String(w.message ?? '') }));
  return {
    files: folder.files.length,
    filesIgnored: folder.ignored.length,
    imagesUploaded,
    imagesSkipped: images.length - imagesUploaded,
    bytesUploaded: state.uploadBytes,
    imageBytesUploaded,
    taskId,
    status: task.status,
    projectId: meta.project?.id ?? project.id ?? null,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    ...(meta.error ? { error: meta.error } : {}),
    warnings,
    moreWarnings: typeof meta.moreWarnings === 'number' ? meta.moreWarnings : 0,
  };
}

/** Exit codes of `annostore import`; scripts may rely on them. */
export const EXIT_CODES = {
  finished: 0,
  /** The task ended in error or was stopped, or the server refused the import. */
  failed: 1,
  usage: 2,
  /** The folder is not a project, a file cannot be read, or the server refused a file. */
  folder: 3,
  /** The key was refused (401) or may not write (403). */
  auth: 4,
  /** No answer from the server, after retries. */
  unreachable: 5,
  interrupted: 130,
} as const;
