// POST /tasks/import/files: checks each uploaded file and stores the good ones as staged uploads.
// Bytes are already on local disk (hashed while they streamed in); nothing here holds a whole file in
// memory: annotation and class files that are parsed to be checked are parsed on annotation threads.
import { randomBytes } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { Context } from '../context.ts';
import { type Sharp, loadSharp } from '../sharp.ts';
import type { Principal } from './keys.service.ts';
import * as images from '../repositories/images.repository.ts';
import * as staging from '../repositories/staging.repository.ts';
import type { ReceivedFile } from '../storage/staging.ts';
import { isValidHash } from './identifiers.ts';
import { type DocumentProblem, type OffThreadCheck, checkUploadedDocument } from './upload-documents.ts';
import { annotationThreads } from '../tasks/handlers/annotation-threads.ts';
import { queueThumbnails } from './thumbnail-tasks.ts';

export type UploadErrorCode =
  | 'INVALID_HASH'
  | 'HASH_MISMATCH'
  | 'MISSING_CONTENT'
  | 'DUPLICATE_ID'
  | 'UNSUPPORTED_TYPE'
  | 'UNSUPPORTED_FORMAT'
  | 'INVALID_CONTENT'
  | 'TOO_LARGE';

export interface UploadError {
  code: UploadErrorCode;
  message: string;
}

export interface UploadResult {
  id: string;
  fileId?: string;
  hash?: string;
  errors: UploadError[];
}

/** One file of the request: its metadata part (raw text) and, if sent, its received content. */
export interface UploadEntry {
  key: string;
  metadata: string;
  file: ReceivedFile | undefined;
}

export const FILE_TYPES = ['image', 'annotation', 'class'] as const;
export const FILE_FORMATS = ['supervisely', 'coco', 'yolo', 'pascal_voc', 'images'] as const;
export type FileType = (typeof FILE_TYPES)[number];
export type FileFormat = (typeof FILE_FORMATS)[number];

/** Image formats we store: the ones sharp decodes, without the scriptable SVG. */
const IMAGE_FORMATS: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  tiff: 'image/tiff',
  avif: 'image/avif',
  heif: 'image/heif',
};

interface Metadata {
  id: string;
  hash: string | null | undefined;
  type: string;
  format: string;
}

const METADATA_MEMBERS = new Set(['id', 'hash', 'type', 'format']);

/** Parses a metadata part; a broken one is a request error, since its file cannot even be named. */
export function parseMetadata(key: string, raw: string): Metadata | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return `part "${key}" is not valid JSON`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `part "${key}" must be a JSON object`;
  const m = value as Record<string, unknown>;
  const unknown = Object.keys(m).find((k) => !METADATA_MEMBERS.has(k));
  if (unknown !== undefined) return `part "${key}" has unknown member "${unknown}"`;
  if (typeof m.id !== 'string' || m.id.length === 0 || m.id.length > 1024) return `part "${key}": id must be a non-empty string`;
  // The id is kept as the staged file's name: text with a NUL is refused everywhere (see validation.ts).
  if (m.id.includes('\0')) return `part "${key}": id must not contain the NUL character`;
  if (m.hash !== undefined && m.hash !== null && typeof m.hash !== 'string') return `part "${key}": hash must be a string or null`;
  if (typeof m.type !== 'string') return `part "${key}": type must be a string`;
  if (typeof m.format !== 'string') return `part "${key}": format must be a string`;
  return { id: m.id, hash: m.hash as string | null | undefined, type: m.type, format: m.format };
}

interface ImageFacts {
  mediaType: string;
  width: number;
  height: number;
}

async function inspectImage(sharp: Sharp, file: ReceivedFile, maxPixels: number): Promise<ImageFacts | UploadError> {
  try {
    // Header only (no pixel is decoded here): format and dimensions, checked against the pixel limit
    // below so a decompression bomb is refused by its declared size. A small image kept in memory
    // is read from there.
    const meta = await sharp(file.bytes ?? file.path, { limitInputPixels: false }).metadata();
    const mediaType = meta.format ? IMAGE_FORMATS[meta.format] : undefined;
    if (!mediaType || !meta.width || !meta.height) {
      return { code: 'INVALID_CONTENT', message: `not a supported image (${meta.format ?? 'unknown format'})` };
    }
    if (meta.width * meta.height > maxPixels) {
      return { code: 'TOO_LARGE', message: `image of ${meta.width}×${meta.height} pixels is over the limit of ${maxPixels}` };
    }
    return { mediaType, width: meta.width, height: meta.height };
  } catch {
    return { code: 'INVALID_CONTENT', message: 'not a decodable image' };
  }
}

const newFileId = (): string => `f_${randomBytes(16).toString('base64url')}`;

/**
 * Large annotation and class files are parsed on the process's annotation threads (IMPORT_THREADS of
 * them, at least one even where imports keep their work on the task's thread), which an import's
 * batches share: one upload's checks never stop a server's other requests.
 */
function checkOnThreads(ctx: Context): OffThreadCheck {
  return (type, format, path) => annotationThreads(Math.max(1, ctx.config.tasks.importThreads)).checkDocument(type, format, path);
}

interface Accepted {
  index: number;
  metadata: Metadata;
  type: FileType;
  format: FileFormat;
  file: ReceivedFile;
  image: ImageFacts | null;
}

/** Checks every entry, stores the accepted ones, and answers one result per entry, in entry order. */
export async function completeUpload(ctx: Context, principal: Principal, entries: UploadEntry[], metadata: Metadata[]): Promise<UploadResult[]> {
  const db = ctx.db.kysely;
  const limits = ctx.config.limits;
  const now = new Date();
  const declaredHashes = metadata.map((m) => m.hash).filter((h): h is string => isValidHash(h));
  const unknown = await staging.unknownHashes(db, principal.teamId, [...new Set(declaredHashes)], now.toISOString());

  // Headers of the images are read side by side (sharp works off the event loop); an entry refused
  // for another reason below just leaves its answer unused. sharp is loaded first, so a failure to
  // load it fails the request rather than each inspection.
  const isImage = (entry: UploadEntry, index: number) => entry.file !== undefined && !entry.file.truncated && metadata[index]!.type === 'image';
  const sharp = entries.some(isImage) ? await loadSharp() : null;
  const inspections = entries.map((entry, index) => (sharp && isImage(entry, index) ? inspectImage(sharp, entry.file!, limits.imagePixels) : null));

  const results: UploadResult[] = [];
  const accepted: Accepted[] = [];
  /** Documents being checked, all of the request's at once; their answers are awaited after the loop. */
  const checking: { accepted: Accepted; problem: Promise<DocumentProblem | null> }[] = [];
  const offThread = checkOnThreads(ctx);
  const seenIds = new Set<string>();
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index]!;
    const m = metadata[index]!;
    const result: UploadResult = { id: m.id, errors: [] };
    results.push(result);
    const fail = (code: UploadErrorCode, message: string) => result.errors.push({ code, message });

    if (seenIds.has(m.id)) fail('DUPLICATE_ID', `id "${m.id}" appears more than once in this request`);
    seenIds.add(m.id);
    const type = m.type as FileType;
    const format = m.format.toLowerCase() as FileFormat;
    if (!FILE_TYPES.includes(type)) fail('UNSUPPORTED_TYPE', `type "${m.type}" is not one of ${FILE_TYPES.join(', ')}`);
    if (!FILE_FORMATS.includes(format)) fail('UNSUPPORTED_FORMAT', `format "${m.format}" is not one of ${FILE_FORMATS.join(', ')}`);
    const hashGiven = m.hash !== undefined && m.hash !== null;
    if (hashGiven && !isValidHash(m.hash)) fail('INVALID_HASH', 'hash must be the base64 of a 32-byte SHA-256 digest');
    if (result.errors.length > 0) continue;

    const file = entry.file;
    if (!file) {
      if (type === 'image' && hashGiven && !unknown.has(m.hash!)) result.hash = m.hash!;
      else fail('MISSING_CONTENT', `no "${entry.key}-file" part, and the hash is not known`);
      continue;
    }
    if (file.truncated) {
      fail('TOO_LARGE', `file is larger than ${limits.uploadFileBytes} bytes`);
      continue;
    }
    if (hashGiven && file.hash !== m.hash) {
      fail('HASH_MISMATCH', `content hashes to ${file.hash}, not ${m.hash}`);
      continue;
    }
    if (type === 'image') {
      // An image that got this far passed isImage above: its inspection is running.
      const facts = await inspections[index]!;
      if ('code' in facts) {
        result.errors.push(facts);
        continue;
      }
      result.hash = file.hash;
      accepted.push({ index, metadata: m, type, format, file, image: facts });
    } else {
      // A file kept in memory is parsed on this thread: one at a time, each after a turn of the event
      // loop, so that 100 of them never hold up other requests together.
      if (file.bytes) await setImmediate();
      const problem = checkUploadedDocument(type, format, file, offThread);
      // Handled until it is awaited below, so a failed read cannot go unhandled meanwhile.
      problem.catch(() => {});
      checking.push({ accepted: { index, metadata: m, type, format, file, image: null }, problem });
    }
  }
  const problems = await Promise.all(checking.map((c) => c.problem));
  checking.forEach((c, k) => {
    const problem = problems[k];
    if (problem) results[c.accepted.index]!.errors.push(problem);
    else {
      results[c.accepted.index]!.fileId = newFileId();
      accepted.push(c.accepted);
    }
  });
  accepted.sort((a, b) => a.index - b.index);

  await storeAccepted(ctx, principal, accepted, results, now);
  return results;
}

async function storeAccepted(ctx: Context, principal: Principal, accepted: Accepted[], results: UploadResult[], now: Date): Promise<void> {
  if (accepted.length === 0) return;
  const db = ctx.db.kysely;
  const known = await staging.blobsByHash(db, [...new Set(accepted.map((a) => a.file.hash))]);
  // Bytes first, rows after: a blob row always has its bytes in the store.
  const toWrite = new Map<string, ReceivedFile>();
  for (const a of accepted) if (!known.has(a.file.hash) && !toWrite.has(a.file.hash)) toWrite.set(a.file.hash, a.file);
  // Side by side, so the disk syncs them together; every write ends before the request goes on. A
  // file the staging folder flushed is adopted once its flush is done, without a second sync.
  const adopt = async (hash: string, file: ReceivedFile) => {
    if (file.synced) await file.synced;
    await ctx.blobs.adoptFile(hash, file.path, { synced: file.synced !== undefined });
  };
  const writes = await Promise.allSettled([...toWrite].map(([hash, file]) => adopt(hash, file)));
  const failed = writes.find((w) => w.status === 'rejected');
  if (failed) throw failed.reason;
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + ctx.config.limits.stagedFileTtlMs).toISOString();
  // Images new to the store get their grid thumbnails in the background, ready before they are imported.
  const newImages = [...toWrite.keys()].filter((hash) => accepted.some((a) => a.image && a.file.hash === hash));
  await db.transaction().execute(async (trx) => {
    if (newImages.length > 0) await queueThumbnails(trx, principal, { hashes: newImages });
    await images.ensureBlobs(
      trx,
      accepted.map((a) => ({
        hash: a.file.hash,
        size: a.file.size,
        mediaType: a.image?.mediaType ?? 'application/octet-stream',
        width: a.image?.width ?? null,
        height: a.image?.height ?? null,
      })),
    );
    await staging.insertStagedFiles(
      trx,
      accepted.map((a) => ({
        id: results[a.index]!.fileId ?? newFileId(),
        teamId: principal.teamId,
        kind: a.type,
        format: a.format,
        name: a.metadata.id,
        hash: a.file.hash,
        size: a.file.size,
        createdAt,
        expiresAt,
      })),
    );
  });
  if (newImages.length > 0) ctx.tasksQueued.notify();
  // Staged files not adopted (content already stored) go with the request's folder.
}
