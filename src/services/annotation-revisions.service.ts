// Who changed an image's annotation, when, and what it was: one revision per change. A save records
// the state it replaced (a snapshot, stored once per distinct state) and the counts of objects added,
// removed and changed; the state a revision left is the state the next one replaced, or the image's
// current annotation. A new image's revision stores no state at all, so an import adds one row per
// image and nothing more. Revisions are kept per image up to REVISIONS_PER_IMAGE and for
// REVISION_RETENTION_DAYS (config.ts).
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { notFound } from '../errors.ts';
import * as revisions from '../repositories/annotation-revisions.repository.ts';
import { saveSnapshots } from '../repositories/annotation-contents.repository.ts';
import { findAnnotation } from '../repositories/image-annotation.repository.ts';
import { type AnnotationSnapshot, EMPTY_SNAPSHOT, type EncodedSnapshot, type ObjectChanges, decodeSnapshot, encodeSnapshot, objectChanges } from './annotation-snapshots.ts';
import { annotationJson, objectStarts } from './annotation-text.ts';
import { imageTagValuesText } from './annotation-tag-values.ts';
import { objectIdsOf } from './object-ids.ts';
import type { Principal } from './keys.service.ts';
import type { Page } from './paging.ts';

/** What made a change: a request with an API key (or a session of one), or a task. */
export interface RevisionAuthor {
  teamId: number;
  keyId: number | null;
  userId: number | null;
  taskId: number | null;
}

/** A request's caller as a revision's author: the key, and the user it belongs to (a session's signed-in user). */
export const keyAuthor = (principal: Pick<Principal, 'teamId' | 'keyId' | 'userId'>): RevisionAuthor => ({
  teamId: principal.teamId,
  keyId: principal.keyId,
  userId: principal.userId,
  taskId: null,
});

/** Who a change's revisions name, and how many revisions an image keeps. */
export interface RevisionPolicy {
  author: RevisionAuthor;
  keep: number;
}

/** What a request's change of one image or many (a class or tag renamed or deleted) records of each: its caller as author. */
export const rewriteRevisionsOf = (ctx: Context, principal: Pick<Principal, 'teamId' | 'keyId' | 'userId'>): RevisionPolicy => ({
  author: keyAuthor(principal),
  keep: ctx.config.operations.revisionsPerImage,
});

export const taskAuthor = (teamId: number, taskId: number): RevisionAuthor => ({ teamId, keyId: null, userId: null, taskId });

/** The stored annotation as a snapshot (what a revision keeps of the state before it). */
export const snapshotOf = (stored: Pick<AnnotationSnapshot, 'description' | 'objectsJson' | 'objectIds' | 'nextObjectId' | 'objectTagValues'> & { tags: { title: string; value: string | null }[] }): AnnotationSnapshot => ({
  description: stored.description,
  tags: stored.tags.map((t) => ({ title: t.title, value: t.value })),
  objectsJson: stored.objectsJson,
  objectIds: stored.objectIds,
  nextObjectId: stored.nextObjectId,
  objectTagValues: stored.objectTagValues,
});

/**
 * Records a change of one image's annotation from `before` to `after`, in the change's transaction,
 * and removes the image's revisions past the newest `keep`.
 */
export async function recordRevision(
  trx: Kysely<Database>,
  keep: number,
  author: RevisionAuthor,
  imageId: number,
  before: AnnotationSnapshot,
  after: Pick<AnnotationSnapshot, 'objectsJson' | 'objectIds' | 'objectTagValues'>,
): Promise<void> {
  await revisions.saveSnapshot(trx, await recordRevisionLeavingSnapshot(trx, keep, author, imageId, before, after));
}

/**
 * As recordRevision, but the snapshot of the state before is left to the caller to store, in its
 * transaction, and answered: an annotation save stores it with its others in one statement at its end
 * (image-annotation.repository.ts, beginAnnotationWrite).
 */
export async function recordRevisionLeavingSnapshot(
  trx: Kysely<Database>,
  keep: number,
  author: RevisionAuthor,
  imageId: number,
  before: AnnotationSnapshot,
  after: Pick<AnnotationSnapshot, 'objectsJson' | 'objectIds' | 'objectTagValues'>,
): Promise<EncodedSnapshot> {
  const encoded = encodeSnapshot(before);
  await recordRevisionRow(trx, keep, author, imageId, encoded, objectChanges(before, after));
  return encoded;
}

async function recordRevisionRow(trx: Kysely<Database>, keep: number, author: RevisionAuthor, imageId: number, before: EncodedSnapshot, changes: ObjectChanges): Promise<void> {
  await revisions.insertRevisions(trx, [{ imageId, ...author, createdAt: isoNow(), beforeHash: before.hash, ...changes }]);
  const gone = await revisions.trimImageRevisions(trx, imageId, keep);
  if (gone.length > 0) await revisions.deleteUnnamedSnapshots(trx, gone);
}

/**
 * The states of these images' annotations before a change, read in the change's transaction, for
 * recordChangedStates to compare with after it. Kept encoded (deflated), so a change of a project's
 * every image (a tag renamed) holds compressed states only; another team's image is left out.
 */
export async function statesBefore(trx: Kysely<Database>, teamId: number, imageIds: Iterable<number>): Promise<Map<number, EncodedSnapshot>> {
  const states = new Map<number, EncodedSnapshot>();
  for (const row of await revisions.annotationStates(trx, teamId, [...new Set(imageIds)])) states.set(row.id, encodeSnapshot(snapshotOf(row)));
  return states;
}

/**
 * Records a revision of each image whose annotation the change altered (its state now is another
 * than the one read before it), in the change's transaction; answers the ids of those images. A
 * change that left an image's annotation as it was (a rename of the image, a tag attached twice)
 * records none for it. Reads, snapshots and revision rows go a page of images a statement, so a
 * rename across a project costs a few statements per 500 images, not several per image.
 */
export async function recordChangedStates(trx: Kysely<Database>, policy: RevisionPolicy, before: ReadonlyMap<number, EncodedSnapshot>): Promise<number[]> {
  const createdAt = isoNow();
  const changed: number[] = [];
  const snapshots: EncodedSnapshot[] = [];
  const rows: revisions.NewRevision[] = [];
  for (const row of await revisions.annotationStates(trx, policy.author.teamId, [...before.keys()])) {
    const was = before.get(row.id)!;
    const now = snapshotOf(row);
    if (encodeSnapshot(now).hash === was.hash) continue;
    snapshots.push(was);
    rows.push({ imageId: row.id, ...policy.author, createdAt, beforeHash: was.hash, ...objectChanges(decodeSnapshot(was.body), now) });
    changed.push(row.id);
  }
  await saveSnapshots(trx, snapshots);
  await revisions.insertRevisions(trx, rows);
  const gone: string[] = [];
  for (const imageId of await revisions.overfullImages(trx, changed, policy.keep)) gone.push(...(await revisions.trimImageRevisions(trx, imageId, policy.keep)));
  if (gone.length > 0) await revisions.deleteUnnamedSnapshots(trx, gone);
  return changed;
}

/** Records the first revision of new images (an import's, a DTL output's): one row each, no state before. */
export async function recordNewImages(trx: Kysely<Database>, author: RevisionAuthor, images: readonly { imageId: number; objectsJson: string }[]): Promise<void> {
  const createdAt = isoNow();
  await revisions.insertRevisions(
    trx,
    images.map((i) => ({ imageId: i.imageId, ...author, createdAt, beforeHash: null, added: objectStarts(i.objectsJson).length, removed: 0, changed: 0 })),
  );
}

export interface RevisionItem {
  id: number;
  author: { keyId: number | null; userId: number | null; taskId: number | null };
  createdAt: string;
  objects: { added: number; removed: number; changed: number };
}

const itemOf = (r: revisions.RevisionRow): RevisionItem => ({
  id: r.id,
  author: { keyId: r.key_id, userId: r.user_id, taskId: r.task_id },
  createdAt: r.created_at,
  objects: { added: r.added, removed: r.removed, changed: r.changed },
});

async function requireImage(db: Kysely<Database>, teamId: number, imageId: number) {
  const stored = await findAnnotation(db, teamId, imageId);
  if (!stored) throw notFound('image', { imageId });
  return stored;
}

/** The image's revisions, newest first; another team's image is not found. */
export async function listImageRevisions(ctx: Context, teamId: number, imageId: number, page: { beforeId?: number; limit: number; total?: boolean }): Promise<Page<RevisionItem>> {
  const db = ctx.db.kysely;
  await requireImage(db, teamId, imageId);
  const rows = await revisions.listRevisions(db, imageId, { beforeId: page.beforeId ?? null, limit: page.limit + 1 });
  const kept = rows.slice(0, page.limit);
  return {
    items: kept.map(itemOf),
    nextAfterId: rows.length > page.limit ? kept.at(-1)!.id : null,
    ...(page.total ? { total: await revisions.countRevisions(db, imageId) } : {}),
  };
}

/** A revision and the annotation as that revision left it, with the image's name and size. */
export interface RevisionState {
  revision: RevisionItem;
  image: { name: string; width: number; height: number };
  state: AnnotationSnapshot;
}

/** The revision of the team's image, and the state it left (the next revision's state before, or the current one). */
export async function revisionState(db: Kysely<Database>, teamId: number, imageId: number, revisionId: number): Promise<RevisionState> {
  const stored = await requireImage(db, teamId, imageId);
  const row = await revisions.findRevision(db, imageId, revisionId);
  if (!row) throw notFound('revision', { imageId, revisionId });
  const next = await revisions.nextRevision(db, imageId, revisionId);
  let state: AnnotationSnapshot;
  if (!next) state = snapshotOf(stored);
  else if (next.beforeHash === null) state = EMPTY_SNAPSHOT;
  else {
    const body = await revisions.snapshotBody(db, next.beforeHash);
    if (!body) throw new Error(`snapshot ${next.beforeHash} of revision ${next.id} is missing`);
    state = decodeSnapshot(body);
  }
  return { revision: itemOf(row), image: { name: stored.name, width: stored.width, height: stored.height }, state };
}

/** GET …/revisions/:revisionId: the revision and the annotation it left, as JSON text. */
export async function revisionAnnotationJson(db: Kysely<Database>, teamId: number, imageId: number, revisionId: number): Promise<string> {
  const { revision, image, state } = await revisionState(db, teamId, imageId, revisionId);
  const annotation = annotationJson(
    {
      description: state.description,
      tags: state.tags.map((t) => t.title),
      name: image.name,
      width: image.width,
      height: image.height,
      objectsJson: state.objectsJson,
      objectIds: state.objectIds,
      imageTagValues: imageTagValuesText(state.tags),
      objectTagValues: state.objectTagValues,
    },
    objectIdsOf(state.objectIds, objectStarts(state.objectsJson).length),
  );
  return `{"revision":${JSON.stringify(revision)},"annotation":${annotation}}`;
}

const BATCH = 5000;

/** Removes revisions older than the retention period, and snapshots no revision names; answers how many revisions went. */
export async function expireRevisions(ctx: Context, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ctx.config.operations.revisionRetentionMs).toISOString();
  const db = ctx.db.kysely;
  let removed = 0;
  for (;;) {
    const { count } = await revisions.deleteRevisionsBefore(db, cutoff, BATCH);
    removed += count;
    if (count < BATCH) break;
  }
  // Also those of images deleted since (their revisions went with them).
  await revisions.deleteOrphanSnapshots(db);
  return removed;
}
