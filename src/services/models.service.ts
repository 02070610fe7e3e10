// Models and architectures as API v2 offers them: models belong to a team and may carry a weights
// file (kept in the archive store under weightsKey, never a client's path); architectures are one
// catalogue for everybody, changed by admins only.
import { Transform, type Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { AppError, conflict, notFound, preconditionFailed, validation } from '../errors.ts';
import * as catalogue from '../repositories/catalogue.repository.ts';
import type { ArchitectureRecord, ModelRecord } from '../repositories/catalogue.repository.ts';
import { type ArchiveStat, type ByteRange, weightsKey } from '../storage/archive-store.ts';
import { addArchitecture } from './catalogue.service.ts';
import { checkIfMatch, ifMatchAdmits } from './preconditions.ts';

export interface PageRequest {
  afterId?: number;
  limit: number;
  count?: boolean;
}

export interface Page<T> {
  items: T[];
  /** The id the next page starts after; null on the last page. */
  nextId: number | null;
  total?: number;
}

/** Reads one more than asked, which tells whether a next page exists without a count. */
async function page<T extends { id: number }>(request: PageRequest, read: (limit: number) => Promise<T[]>, count: () => Promise<number>): Promise<Page<T>> {
  const rows = await read(request.limit + 1);
  const items = rows.slice(0, request.limit);
  const nextId = rows.length > request.limit ? items.at(-1)!.id : null;
  return { items, nextId, ...(request.count ? { total: await count() } : {}) };
}

export const listArchitectures = (db: Kysely<Database>, request: PageRequest): Promise<Page<ArchitectureRecord>> =>
  page(request, (limit) => catalogue.listArchitecturePage(db, { afterId: request.afterId, limit }), () => catalogue.countArchitectures(db));

export async function getArchitecture(db: Kysely<Database>, id: number): Promise<ArchitectureRecord> {
  const architecture = await catalogue.findArchitecture(db, id);
  if (!architecture) throw notFound('architecture', { architectureId: id });
  return architecture;
}

export async function createArchitecture(db: Kysely<Database>, request: Parameters<typeof addArchitecture>[1]): Promise<ArchitectureRecord> {
  return getArchitecture(db, await addArchitecture(db, request));
}

/**
 * Removes an architecture no model uses; 409 while one does. With `ifMatch`, only while it is still
 * the version that tag names (checked and deleted in one transaction that holds the row).
 */
export async function deleteArchitecture(db: Kysely<Database>, id: number, ifMatch?: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await catalogue.findArchitecture(trx, id, { lock: true });
    if (!current) throw notFound('architecture', { architectureId: id });
    checkIfMatch(current, ifMatch);
    if (!(await catalogue.deleteUnusedArchitecture(trx, id))) throw conflict('models use this architecture; delete them first', { architectureId: id });
  });
}

export const listModels = (db: Kysely<Database>, teamId: number, request: PageRequest): Promise<Page<ModelRecord>> =>
  page(request, (limit) => catalogue.listModelPage(db, teamId, { afterId: request.afterId, limit }), () => catalogue.countModels(db, teamId));

/** The team's model, or a 404 (missing, or another team's). */
export async function getModel(db: Kysely<Database>, teamId: number, id: number): Promise<ModelRecord> {
  const model = await catalogue.findModel(db, teamId, id);
  if (!model) throw notFound('model', { modelId: id });
  return model;
}

function checkTitle(title: string): string {
  if (!title.trim()) throw validation('a model needs a title', { field: 'title' });
  return title;
}

/** A new model of the team; its path names where its weights will be kept. */
export async function createModel(ctx: Context, teamId: number, request: { title: string; architectureId: number }): Promise<ModelRecord> {
  const db = ctx.db.kysely;
  const title = checkTitle(request.title);
  if (!(await catalogue.findArchitecture(db, request.architectureId))) {
    throw validation(`there is no architecture ${request.architectureId}`, { field: 'architectureId', architectureId: request.architectureId });
  }
  const id = await db.transaction().execute(async (trx) => {
    const modelId = await catalogue.insertModel(trx, { teamId, architectureId: request.architectureId, title, bucket: ctx.archives.bucket, objectName: '' });
    await catalogue.updateModel(trx, modelId, { objectName: ctx.archives.objectName(weightsKey(teamId, modelId)) });
    return modelId;
  });
  return getModel(db, teamId, id);
}

/**
 * Renames the team's model. With `ifMatch`, only while the model is still the one that tag names: read,
 * compared and written in one transaction (the row locked on PostgreSQL), so of two edits made from the
 * same version one wins and the other gets a 412.
 */
export async function renameModel(db: Kysely<Database>, teamId: number, id: number, title: string, ifMatch: string | undefined): Promise<ModelRecord> {
  checkTitle(title);
  return db.transaction().execute(async (trx) => {
    const current = await catalogue.findModel(trx, teamId, id, { lock: true });
    if (!current) throw notFound('model', { modelId: id });
    checkIfMatch(current, ifMatch);
    await catalogue.updateModel(trx, id, { title });
    return (await catalogue.findModel(trx, teamId, id))!;
  });
}

/**
 * Removes the team's model and its weights; with `ifMatch`, only while the model is still the version
 * that tag names (checked and deleted in one transaction that holds the row).
 */
export async function deleteModel(ctx: Context, teamId: number, id: number, ifMatch?: string): Promise<void> {
  await ctx.db.kysely.transaction().execute(async (trx) => {
    const current = await catalogue.findModel(trx, teamId, id, { lock: true });
    if (!current) throw notFound('model', { modelId: id });
    checkIfMatch(current, ifMatch);
    // The weights before the row: should the row stay after all, a model without weights is a state
    // the API knows, while weights without their model would never be found again.
    await ctx.archives.delete(weightsKey(teamId, id));
    await catalogue.deleteModel(trx, teamId, id);
  });
}

/**
 * Throws 412 unless If-Match admits the weights there now (as GET answers their ETag); weights not
 * uploaded yet match only no tag. Checked before the bytes are read: the store publishes whole files,
 * so two uploads based on one version can still both land, the later one last.
 */
async function checkWeightsMatch(ctx: Context, key: string, ifMatch: string): Promise<void> {
  const current = await ctx.archives.stat(key);
  if (current && ifMatchAdmits(ifMatch, current.etag)) return;
  throw preconditionFailed('the weights have changed since the ETag given in If-Match', current ? { etag: current.etag } : {});
}

/** Passes the bytes through and fails the stream once more than `limit` have come. */
function limitedTo(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) callback(new AppError('PAYLOAD_TOO_LARGE', `a weights file is at most ${limit} bytes`, { limit }));
      else callback(null, chunk);
    },
  });
}

/**
 * Stores the body as the model's weights, replacing any earlier ones once it has arrived whole: a body
 * cut short or over `limit` bytes leaves the earlier weights as they were.
 */
export async function putWeights(ctx: Context, teamId: number, id: number, body: Readable, limit: number, ifMatch?: string): Promise<ArchiveStat> {
  const limited = limitedTo(limit);
  // Before anything is awaited, so that no failure of the body goes unheard: a client gone
  // mid-upload ends the store's stream too, which then publishes nothing.
  body.on('error', (error) => limited.destroy(error));
  body.once('close', () => {
    if (!body.readableEnded) limited.destroy(new Error('the upload ended before its last byte'));
  });
  body.pipe(limited);
  // Its failure is read from `limited.errored` below, also when it fails before the store reads it.
  limited.on('error', () => {});
  const db = ctx.db.kysely;
  await getModel(db, teamId, id);
  const key = weightsKey(teamId, id);
  if (ifMatch !== undefined) await checkWeightsMatch(ctx, key, ifMatch);
  let stat: ArchiveStat;
  try {
    stat = await ctx.archives.put(key, limited);
  } catch (error) {
    throw limited.errored instanceof AppError ? limited.errored : error;
  }
  // A delete of the model while the bytes streamed in leaves nothing behind.
  if (!(await catalogue.findModel(db, teamId, id))) {
    await ctx.archives.delete(key);
    throw notFound('model', { modelId: id });
  }
  await catalogue.updateModel(db, id, { bucket: ctx.archives.bucket, objectName: ctx.archives.objectName(key) });
  return stat;
}

/** The model's weights: their facts and a reader of them, whole or one range. 404 before an upload. */
export async function modelWeights(ctx: Context, teamId: number, id: number): Promise<{ stat: ArchiveStat; open: (range?: ByteRange) => Promise<Readable> }> {
  await getModel(ctx.db.kysely, teamId, id);
  const key = weightsKey(teamId, id);
  const stat = await ctx.archives.stat(key);
  if (!stat) throw notFound('model weights', { modelId: id });
  return { stat, open: (range) => ctx.archives.read(key, range, stat.etag) };
}
