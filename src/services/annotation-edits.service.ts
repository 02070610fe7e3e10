// One image's annotation under v2: read with its objects' stable ids, replaced whole (PUT) or changed
// object by object (PATCH), each write conditional on the If-Match the caller read.
//
// A write reads the annotation, compares the caller's tag with the current one and writes, in one
// transaction that holds the image row (select … for update on PostgreSQL; SQLite's write transaction
// holds the database), so of two writes based on the same tag exactly one succeeds. It writes what
// v1 shows and derives from an annotation, as an import does: the objects in v1's serialisation, the
// description, the image tags and the figure tag references; v1's records then show the edit, without
// ids.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { conflict, notFound } from '../errors.ts';
import { type AnnotationObject, type TagValue, serializeObjects, toAnnotationObject } from '../formats/canonical.ts';
import { parseObjectTagValues } from '../formats/object-tag-values.ts';
import { type StoredAnnotation, beginAnnotationWrite, findAnnotation, lockClassesByTitle, lockTagsByTitle } from '../repositories/image-annotation.repository.ts';
import { classShapes } from '../repositories/import.repository.ts';
import { invalidAt, readAnnotation } from './annotation-input.ts';
import { imageTagValuesText, objectTagValuesTextOf, resolveTagValues } from './annotation-tag-values.ts';
import { type AnnotationPatch, applyPatch } from './annotation-patch.ts';
import { type AnnotationState, annotationJson, annotationTag, checkAnnotationIfMatch, objectStarts } from './annotation-text.ts';
import { type IdentifiedObjects, nextObjectIdOf, objectIdsOf, storedObjectIds } from './object-ids.ts';
import { type WrittenAnnotations, objectsJsonReusing, sameObject } from './stored-object-texts.ts';
import { recordEvent, recordEvents } from './webhook-events.ts';
import { type RevisionAuthor, recordRevisionLeavingSnapshot, revisionState, snapshotOf } from './annotation-revisions.service.ts';
import type { EncodedSnapshot } from './annotation-snapshots.ts';
import { checkAnnotationTurn } from './jobs.service.ts';

/**
 * An annotation as v2 answers it: its entity tag, and its representation (v1's annotation record
 * `data`, every object with its id first) as JSON text, made only when asked for.
 */
export interface AnnotationAnswer {
  etag: string;
  json(): string;
  /** The state answered: what a revision records as the state after a write. */
  state: AnnotationState;
}

function answerOf(state: AnnotationState, ids: readonly number[], starts?: number[]): AnnotationAnswer {
  return { etag: annotationTag(state), json: () => annotationJson(state, ids, starts), state };
}

const stateOf = (stored: StoredAnnotation): AnnotationState => ({
  description: stored.description,
  tags: stored.tags.map((t) => t.title),
  name: stored.name,
  width: stored.width,
  height: stored.height,
  objectsJson: stored.objectsJson,
  objectIds: stored.objectIds,
  imageTagValues: imageTagValuesText(stored.tags),
  objectTagValues: stored.objectTagValues,
});

async function requireAnnotation(db: Kysely<Database>, teamId: number, imageId: number, lock: boolean): Promise<StoredAnnotation> {
  const stored = await findAnnotation(db, teamId, imageId, { lock });
  if (!stored) throw notFound('image', { imageId });
  return stored;
}

/** The stored objects, read, with their ids and the next id. */
function currentObjects(stored: StoredAnnotation): IdentifiedObjects {
  const objects = JSON.parse(stored.objectsJson) as AnnotationObject[];
  return { objects, ids: objectIdsOf(stored.objectIds, objects.length), next: nextObjectIdOf(stored.nextObjectId, objects.length) };
}

/** The annotation of an image of the caller's team; another team's image is not found either. */
export async function getAnnotation(ctx: Context, teamId: number, imageId: number): Promise<AnnotationAnswer> {
  const stored = await requireAnnotation(ctx.db.kysely, teamId, imageId, false);
  const starts = objectStarts(stored.objectsJson);
  return answerOf(stateOf(stored), objectIdsOf(stored.objectIds, starts.length), starts);
}

/** The objects as they will be stored, with their ids, and the tags they and the image carry. */
interface NextState {
  description: string;
  /** Image tags as the request gives them, with the pointer of each. */
  imageTags: { title: string; at: string }[];
  /** What the request says of the image tags' values; undefined keeps them. */
  imageValues?: { tags?: unknown; tagValues?: unknown };
  /** What the request says of object `index`'s tag values (its members as sent); null keeps them. */
  objectValues: (index: number) => { tags?: unknown; tagValues?: unknown; at: string } | null;
  objects: AnnotationObject[];
  ids: number[];
  next: number;
  /** Where each object's tag list is in the request, to point at an unknown tag. */
  tagsAt: (index: number) => string;
  /** The objects as v1 stores them (stored-object-texts.ts). */
  objectsJson: string;
}

/**
 * Writes `state` as the image's annotation: resolves the tags (each must be a project tag of its
 * scope), stores objects, ids and tags, records the annotation.updated event and the revision, and
 * answers the new representation.
 */
async function writeState(ctx: Context, trx: Kysely<Database>, written: WrittenAnnotations, author: RevisionAuthor, stored: StoredAnnotation, state: NextState): Promise<AnnotationAnswer> {
  const imageTitles = state.imageTags.map((t) => t.title);
  const seen = new Set<string>();
  for (const t of state.imageTags) {
    if (seen.has(t.title)) throw invalidAt(t.at, `tag "${t.title}" is given twice`);
    seen.add(t.title);
  }
  const figureTitles = new Set<string>();
  for (const o of state.objects) for (const title of o.tags) figureTitles.add(title);

  // The classes were read unlocked to check the objects; now held, they must still be there.
  const classTitles = [...new Set(state.objects.map((o) => o.classTitle))];
  const classesHeld = await lockClassesByTitle(trx, stored.projectId, classTitles);
  const gone = classTitles.filter((title) => !classesHeld.has(title));
  if (gone.length > 0) throw conflict(`classes renamed or deleted meanwhile: ${gone.map((t) => `"${t}"`).join(', ')}`, { classes: gone });
  const imageTagIds = await lockTagsByTitle(trx, stored.projectId, 'images', imageTitles);
  const figureTagIds = await lockTagsByTitle(trx, stored.projectId, 'figures', [...figureTitles]);
  for (const t of state.imageTags) {
    if (!imageTagIds.has(t.title)) throw invalidAt(t.at, `"${t.title}" is not an image tag of the project`);
  }
  const imageRules = new Map([...imageTagIds.values()].map((t) => [t.title, t]));
  const figureRules = new Map([...figureTagIds.values()].map((t) => [t.title, t]));
  if (figureTagIds.size < figureTitles.size) {
    for (const [i, o] of state.objects.entries()) {
      const j = o.tags.findIndex((title) => !figureTagIds.has(title));
      if (j >= 0) throw invalidAt(`${state.tagsAt(i)}/${j}`, `"${o.tags[j]}" is not an object tag of the project`);
    }
  }

  // A tag named without a value keeps the value it had (annotation-tag-values.ts): a representation
  // sent back without its values must not lose what an import stored.
  const imageBefore = Object.fromEntries(stored.tags.filter((t) => t.value !== null).map((t) => [t.title, JSON.parse(t.value!) as TagValue]));
  const imageValues = resolveTagValues({ titles: state.imageTags.map((t) => t.title), ...(state.imageValues ?? {}), at: '', before: imageBefore }, imageRules);
  const imageTags = state.imageTags
    .map((t) => ({ tagId: imageTagIds.get(t.title)!.id, title: t.title, value: Object.hasOwn(imageValues, t.title) ? JSON.stringify(imageValues[t.title]) : null }))
    // In tag id order, as v1 lists them.
    .sort((a, b) => a.tagId - b.tagId);
  const objectsBefore = parseObjectTagValues(stored.objectTagValues);
  const objectValues = state.objects.map((o, i) => {
    const before = objectsBefore[String(state.ids[i])];
    const input = state.objectValues(i);
    if (input === null) return before ? Object.fromEntries(o.tags.filter((t) => Object.hasOwn(before, t)).map((t) => [t, before[t]!])) : {};
    return resolveTagValues({ titles: o.tags, ...input, before }, figureRules);
  });
  const objectTagValues = objectTagValuesTextOf(state.ids, objectValues);
  const { objectsJson } = state;
  const ids = storedObjectIds(state.ids, state.next);
  const write = { description: state.description, objectsJson, ...ids, objectTagValues, imageTags, objectTagIds: [...figureTitles].map((title) => figureTagIds.get(title)!.id) };
  const writer = await beginAnnotationWrite(trx, stored, write, classesHeld);
  const tags = imageTags.map((t) => t.title);
  const answer = answerOf(
    { ...stateOf(stored), description: state.description, tags, objectsJson, objectIds: ids.objectIds, imageTagValues: imageTagValuesText(imageTags), objectTagValues },
    state.ids,
  );
  await recordUpdated(trx, author.teamId, stored, answer);
  const before = await recordEditRevision(ctx, trx, author, stored, answer);
  // Last: the statements that update the dataset's running totals (see beginAnnotationWrite).
  await writer.finish(before ? [before] : []);
  written.remember(stored.imageId, objectsJson, state.objects);
  return answer;
}

/**
 * The annotation.updated event of a write, in its transaction: which image, and the new ETag to fetch
 * it by. A write that left the ETag as it was (the annotation sent back as read, an empty patch) sends
 * none: a receiver that writes back what it heard of would otherwise never stop hearing of it.
 */
async function recordUpdated(trx: Kysely<Database>, teamId: number, stored: StoredAnnotation, answer: AnnotationAnswer): Promise<void> {
  if (answer.etag === annotationTag(stateOf(stored))) return;
  await recordEvent(trx, teamId, 'annotation.updated', { imageId: stored.imageId, projectId: stored.projectId, etag: answer.etag });
}

/**
 * The annotation's current ETag inside a transaction, for a change made elsewhere (the image's name or
 * description) to tell whether the annotation changed with it; undefined for a missing image.
 */
export async function annotationTagOf(trx: Kysely<Database>, teamId: number, imageId: number): Promise<{ etag: string; projectId: number } | undefined> {
  const stored = await findAnnotation(trx, teamId, imageId, { lock: false });
  return stored && { etag: annotationTag(stateOf(stored)), projectId: stored.projectId };
}

/** Records annotation.updated for a change of the image that changed its annotation's ETag, in the change's transaction. */
export async function recordAnnotationChanged(trx: Kysely<Database>, teamId: number, imageId: number, before: { etag: string; projectId: number } | undefined): Promise<void> {
  const after = await annotationTagOf(trx, teamId, imageId);
  if (!after || (before && before.etag === after.etag && before.projectId === after.projectId)) return;
  await recordEvent(trx, teamId, 'annotation.updated', { imageId, projectId: after.projectId, etag: after.etag });
}

/**
 * The most annotation.updated events one change of a project (a class or tag renamed or deleted)
 * records: past it, the rest of the images it rewrote send none. A receiver hears of the first ones
 * and can re-read the project; a hundred thousand deliveries per webhook would hold the outbox for hours.
 */
export const MAX_REWRITE_EVENTS = 10_000;

/** Records annotation.updated for images whose objects a project-wide change rewrote, up to MAX_REWRITE_EVENTS, in its transaction. */
export async function recordAnnotationsRewritten(trx: Kysely<Database>, teamId: number, imageIds: readonly number[]): Promise<void> {
  const events: { imageId: number; projectId: number; etag: string }[] = [];
  for (const imageId of [...new Set(imageIds)].slice(0, MAX_REWRITE_EVENTS)) {
    const now = await annotationTagOf(trx, teamId, imageId);
    if (now) events.push({ imageId, projectId: now.projectId, etag: now.etag });
  }
  await recordEvents(trx, teamId, 'annotation.updated', events);
}

/**
 * The revision of a write, in its transaction: who made it, and the state it replaced. A write that
 * left the ETag as it was changed nothing and makes none.
 */
async function recordEditRevision(ctx: Context, trx: Kysely<Database>, author: RevisionAuthor, stored: StoredAnnotation, answer: AnnotationAnswer): Promise<EncodedSnapshot | undefined> {
  if (answer.etag === annotationTag(stateOf(stored))) return undefined;
  return recordRevisionLeavingSnapshot(trx, ctx.config.operations.revisionsPerImage, author, stored.imageId, snapshotOf(stored), answer.state);
}

function checkDescription(ctx: Context, description: string, at: string): void {
  const max = ctx.config.limits.descriptionLength;
  if (description.length > max) throw invalidAt(at, `must be at most ${max} characters`);
}

/**
 * PUT: replaces the annotation (objects, image tags, description) if `ifMatch`, when given, names its
 * current state. Objects sent with an `id` keep it (it must be one of the image's); the others get
 * new ids. `name` and `size` may be sent back as read, not changed.
 */
export async function replaceAnnotation(ctx: Context, written: WrittenAnnotations, author: RevisionAuthor, imageId: number, body: Record<string, unknown>, ifMatch: string | undefined): Promise<AnnotationAnswer> {
  const { teamId } = author;
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const stored = await requireAnnotation(trx, teamId, imageId, true);
    checkAnnotationIfMatch(stateOf(stored), ifMatch);
    await checkAnnotationTurn(trx, author, imageId);
    if (body.name !== undefined && body.name !== stored.name) throw invalidAt('/name', `is the image's name, "${stored.name}", and is not changed here`);
    const size = { width: stored.width, height: stored.height };
    const raw = body.objects as Record<string, unknown>[];
    // tagValues is v2's, not the reader's: it is read by annotation-tag-values.ts.
    const read = readAnnotation({ ...body, tagValues: undefined, objects: raw.map(({ tagValues: _, ...o }) => o), size: body.size ?? size }, await classShapes(trx, stored.projectId));
    if (read.size.width !== size.width || read.size.height !== size.height) {
      throw invalidAt('/size', `is the image's size, ${size.width}×${size.height}, and is not changed here`);
    }
    checkDescription(ctx, read.description, '/description');

    // Ids: kept where given (each once, and only the image's own), the next ones for the rest. The
    // stored objects are counted, not read: a PUT has no use for them.
    const count = objectStarts(stored.objectsJson).length;
    const storedIndex = new Map(objectIdsOf(stored.objectIds, count).map((id, k) => [id, k]));
    const taken = new Set<number>();
    let next = nextObjectIdOf(stored.nextObjectId, count);
    const ids = raw.map((o, i) => {
      const id = o.id;
      if (id === undefined) return next++;
      const at = `/objects/${i}/id`;
      if (typeof id !== 'number' || !storedIndex.has(id)) throw invalidAt(at, `no object of the image has id ${JSON.stringify(id)}; leave it out for a new object`);
      if (taken.has(id)) throw invalidAt(at, `id ${id} is given to two objects`);
      taken.add(id);
      return id;
    });

    // An object sent back as it was read is written as the text it was stored as.
    const objects = read.objects.map(toAnnotationObject);
    const previous = written.objectsOf(stored.imageId, stored.objectsJson);
    const from = raw.map((o) => (o.id === undefined ? -1 : storedIndex.get(o.id as number)!));
    const objectsJson = previous
      ? objectsJsonReusing(stored.objectsJson, objects, from, (i) => sameObject(objects[i]!, previous[from[i]!]!))
      : serializeObjects(objects);

    return writeState(ctx, trx, written, author, stored, {
      description: read.description,
      imageTags: read.tags.map((t, i) => ({ title: t.name, at: `/tags/${i}` })),
      imageValues: { tags: body.tags, tagValues: body.tagValues },
      objectValues: (i) => ({ tags: raw[i]!.tags, tagValues: raw[i]!.tagValues, at: `/objects/${i}` }),
      objects,
      ids,
      next,
      tagsAt: (i) => `/objects/${i}/tags`,
      objectsJson,
    });
  });
}

/**
 * PATCH: adds, changes and removes objects by id (annotation-patch.ts), if `ifMatch`, when given,
 * names the current state. The description and the image tags stay as they are.
 */
export async function patchAnnotation(ctx: Context, written: WrittenAnnotations, author: RevisionAuthor, imageId: number, patch: AnnotationPatch, ifMatch: string | undefined): Promise<AnnotationAnswer> {
  const { teamId } = author;
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const stored = await requireAnnotation(trx, teamId, imageId, true);
    checkAnnotationIfMatch(stateOf(stored), ifMatch);
    await checkAnnotationTurn(trx, author, imageId);
    const patched = applyPatch(currentObjects(stored), patch, { width: stored.width, height: stored.height }, await classShapes(trx, stored.projectId));
    return writeState(ctx, trx, written, author, stored, {
      ...patched,
      // The objects the patch leaves alone are written as the text they were stored as.
      objectsJson: objectsJsonReusing(stored.objectsJson, patched.objects, patched.from, () => true),
      description: stored.description,
      imageTags: stored.tags.map((t, i) => ({ title: t.title, at: `/tags/${i}` })),
    });
  });
}

/**
 * Restores the annotation a revision left (objects with their ids, tags and their values, description)
 * as a new revision, if `ifMatch`, when given, names the current state. Its classes and tags must
 * still be the project's: one deleted since is a 409 or a 400, as a PUT of that annotation would be.
 */
export async function restoreRevision(ctx: Context, written: WrittenAnnotations, author: RevisionAuthor, imageId: number, revisionId: number, ifMatch: string | undefined): Promise<AnnotationAnswer> {
  const { teamId } = author;
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const stored = await requireAnnotation(trx, teamId, imageId, true);
    checkAnnotationIfMatch(stateOf(stored), ifMatch);
    await checkAnnotationTurn(trx, author, imageId);
    const { state } = await revisionState(trx, teamId, imageId, revisionId);
    const objects = JSON.parse(state.objectsJson) as AnnotationObject[];
    const ids = objectIdsOf(state.objectIds, objects.length);
    const values = parseObjectTagValues(state.objectTagValues);
    const tagValues = Object.fromEntries(state.tags.filter((t) => t.value !== null).map((t) => [t.title, JSON.parse(t.value!) as TagValue]));
    // Ids are never given twice in an image: the restored objects keep theirs, and the next new one
    // comes after every id either state has used.
    const next = Math.max(nextObjectIdOf(state.nextObjectId, objects.length), nextObjectIdOf(stored.nextObjectId, objectStarts(stored.objectsJson).length));
    return writeState(ctx, trx, written, author, stored, {
      description: state.description,
      imageTags: state.tags.map((t, i) => ({ title: t.title, at: `/tags/${i}` })),
      imageValues: { tagValues },
      objectValues: (i) => ({ tagValues: values[String(ids[i])] ?? {}, at: `/objects/${i}` }),
      objects,
      ids,
      next,
      tagsAt: (i) => `/objects/${i}/tags`,
      objectsJson: state.objectsJson,
    });
  });
}
