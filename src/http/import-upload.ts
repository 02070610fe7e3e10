// The HTTP side of the import protocol that v1 (/tasks/import/…) and v2 (/imports/…) share: reading an
// upload's multipart parts, and holding memory tight while a large file list is parsed. The rules
// themselves are the services' (upload.service.ts, import.service.ts).
import path from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Limits } from '../config.ts';
import type { Context } from '../context.ts';
import { AppError, validation } from '../errors.ts';
import { LARGE_IMPORT_BODY_BYTES, collectGarbage, holdHeapGrowth } from '../heap-growth.ts';
import { type UploadEntry, type UploadResult, completeUpload, parseMetadata } from '../services/upload.service.ts';
import { StagingFolder } from '../storage/staging.ts';
import { checkMultipartBoundary } from './multipart-boundary.ts';

/** The 413 of one file too many, the same on every upload route (v1's, v2's, the image upload). */
export const tooManyFiles = (maxFiles: number): AppError => new AppError('PAYLOAD_TOO_LARGE', `at most ${maxFiles} files per request`, { limit: maxFiles });

/**
 * busboy's limits, one file (and its metadata) past the request's: the upload's own check refuses that
 * file with tooManyFiles, where busboy's would answer its own words ("reach files limit").
 */
export const partLimits = (maxFiles: number) => ({ files: maxFiles + 1, fields: maxFiles + 1, parts: 2 * maxFiles + 2 });

/** Reads the multipart parts: metadata fields in order, file parts streamed to the staging folder. */
async function receiveParts(request: FastifyRequest, folder: StagingFolder, maxFiles: number): Promise<UploadEntry[]> {
  const order: string[] = [];
  const metadata = new Map<string, string>();
  const files = new Map<string, UploadEntry['file']>();
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const key = part.fieldname.endsWith('-file') ? part.fieldname.slice(0, -'-file'.length) : part.fieldname;
      if (files.has(key)) throw validation(`part "${part.fieldname}" appears more than once`);
      if (files.size >= maxFiles) throw tooManyFiles(maxFiles);
      files.set(key, await folder.receive(part.file));
    } else {
      if (metadata.has(part.fieldname)) throw validation(`part "${part.fieldname}" appears more than once`);
      if (order.length >= maxFiles) throw tooManyFiles(maxFiles);
      order.push(part.fieldname);
      // A part sent as application/json arrives parsed: it is checked as the text the client sent.
      metadata.set(part.fieldname, typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
    }
  }
  return order.map((key) => ({ key, metadata: metadata.get(key)!, file: files.get(key) }));
}

/** Lets the plugin's routes read multipart uploads within the configured limits. */
export async function registerUploadParsing(app: FastifyInstance, limits: Limits): Promise<void> {
  await app.register(multipart, {
    throwFileSizeLimit: false, // an oversized file is a per-file TOO_LARGE, not a failed request
    limits: {
      fieldNameSize: 1024,
      fieldSize: 64 * 1024,
      ...partLimits(limits.uploadFilesPerRequest),
      fileSize: limits.uploadFileBytes,
      headerPairs: 100,
    },
  });
}

/** Receives an upload (a `<key>` JSON part and a `<key>-file` part per file) and answers each file. */
export async function receiveUpload(ctx: Context, request: FastifyRequest): Promise<UploadResult[]> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data');
  checkMultipartBoundary(request.headers['content-type']);
  // Files the store adopts as they are get flushed while the rest of the request streams in.
  const folder = await StagingFolder.create(path.join(ctx.config.dataDir, 'tmp', 'uploads'), { flush: ctx.blobs.adoptsLocalFiles });
  try {
    const entries = await receiveParts(request, folder, ctx.config.limits.uploadFilesPerRequest);
    const metadata = entries.map((e) => {
      const parsed = parseMetadata(e.key, e.metadata);
      if (typeof parsed === 'string') throw validation(parsed, { field: e.key });
      return parsed;
    });
    return await completeUpload(ctx, request.principal, entries, metadata);
  } finally {
    await folder.remove();
  }
}

/**
 * An onRequest hook for the start of an import. A large file list: memory held tight from before the
 * body is parsed until the answer is gone, or the connection is (a pipelined request whose connection
 * drops never gets an answer).
 */
export async function holdHeapForLargeImport(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (Number(request.headers['content-length']) < LARGE_IMPORT_BODY_BYTES) return;
  const releaseHeap = holdHeapGrowth();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    releaseHeap();
    // The request's file list and plan are garbage once it is answered: give that memory back.
    setImmediate(collectGarbage);
  };
  reply.raw.once('close', release);
  request.raw.socket.once('close', release);
}
