// Project tag rules: titles unique per project and scope, and figure tags kept in step with the
// annotation objects that carry their titles.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Database, ProjectTagRow } from '../db/types.ts';
import { type AppError, conflict, notFound } from '../errors.ts';
import type { AnnotationObject, TagValue, TagValueType } from '../formats/canonical.ts';
import { parseObjectTagValues } from '../formats/object-tag-values.ts';
import type { DatasetReader } from '../repositories/hidden-datasets.ts';
import * as projects from '../repositories/projects.repository.ts';
import * as tags from '../repositories/tags.repository.ts';
import type { TagScope } from '../repositories/tags.repository.ts';
import { MAX_REWRITE_EVENTS, recordAnnotationsRewritten } from './annotation-edits.service.ts';
import { type RevisionPolicy, recordChangedStates, statesBefore } from './annotation-revisions.service.ts';
import type { EncodedSnapshot } from './annotation-snapshots.ts';
import { rewriteImageObjects } from './object-rewrite.ts';
import { requireProject } from './projects.service.ts';
import { type ValueRule, checkPossibleValues, possibleValuesOf, valueProblem } from './tag-value-rules.ts';
import { checkTitle } from './titles.ts';

export type { TagScope };

export interface TagInput {
  scope: TagScope;
  title: string;
  hotkey?: string;
  /** What a value of the tag may be; `none` when not given. */
  valueType?: TagValueType;
  /** A oneof_string tag's possible values (required for that type, refused for the others). */
  values?: string[];
}

/** A tag named by id or by title. */
export type TagRef = { id: number; title?: undefined } | { title: string; id?: undefined };

const duplicateTitle = (scope: TagScope, title: string): AppError =>
  conflict(`the project already has a tag of scope ${scope} titled "${title}"`, { field: 'title', title });

export async function listTags(db: Kysely<Database>, teamId: number, projectId: number, scope: TagScope) {
  await requireProject(db, teamId, projectId);
  return tags.listTags(db, projectId, scope);
}

export async function createTag(
  db: Kysely<Database>,
  caller: { teamId: number; userId: number },
  projectId: number,
  input: TagInput,
): Promise<number> {
  checkTitle(input.title);
  checkPossibleValues(input.valueType ?? 'none', input.values);
  try {
    return await db.transaction().execute(async (trx) => {
      await requireProject(trx, caller.teamId, projectId);
      const id = await tags.insertTag(trx, {
        projectId,
        scope: input.scope,
        title: input.title,
        hotkey: input.hotkey ?? '',
        valueType: input.valueType,
        values: input.values,
        createdBy: caller.userId,
      });
      // The project's representation lists its tags, so it changed too.
      await projects.touchProject(trx, projectId);
      return id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTitle(input.scope, input.title);
    throw error;
  }
}

/**
 * Renames the tag and sets its hotkey (kept as it is when not given). A figure tag's new title is
 * written into every object that carried the old one, in the same transaction, so no annotation
 * ever names a tag that does not exist.
 */
export async function updateTag(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  tagId: number,
  input: TagInput,
  revisions: RevisionPolicy,
): Promise<void> {
  checkTitle(input.title);
  await changeTag(db, teamId, projectId, tagId, input.scope, { title: input.title, hotkey: input.hotkey }, revisions);
}

/** What a change of a tag sets; a member not given keeps its value. */
export interface TagChange {
  title?: string;
  hotkey?: string;
  /** A new value type: every value the tag carries must be one of the new type (else 409). */
  valueType?: TagValueType;
  /** A oneof_string tag's new list: every value the tag carries must stay in it (else 409). */
  values?: string[];
}

/**
 * Called inside the changing transaction with the tag as it stands, its row locked: throws to refuse
 * the change (a client's If-Match that no longer holds).
 */
export type TagPrecondition = (tag: ProjectTagRow) => void;

/** updateTag with every member optional and a precondition; answers the tag as it became. */
export async function changeTag(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  tagId: number,
  scope: TagScope,
  change: TagChange,
  revisions: RevisionPolicy,
  precondition?: TagPrecondition,
): Promise<ProjectTagRow> {
  if (change.title !== undefined) checkTitle(change.title);
  try {
    return await db.transaction().execute(async (trx) => {
      await requireProject(trx, teamId, projectId);
      const tag = await tags.findTag(trx, projectId, scope, tagId, { lock: true });
      if (!tag) throw notFound('tag', { projectId, tagId, type: scope });
      precondition?.(tag);
      const title = change.title ?? tag.title;
      const rule = await nextValueRule(trx, tag, change);
      // A title is part of the annotation of every image that uses the tag: each gets a revision.
      const states = tag.title !== title ? await statesBefore(trx, teamId, await tags.imagesUsingTag(trx, tagId, scope)) : new Map<number, EncodedSnapshot>();
      await tags.updateTag(trx, tagId, { title, hotkey: change.hotkey ?? tag.hotkey, valueType: rule.valueType, values: rule.values });
      if (scope === 'figures' && tag.title !== title) {
        await recordAnnotationsRewritten(trx, teamId, await rewriteFigureTag(trx, tagId, (titles) => titles.map((t) => (t === tag.title ? title : t))));
        await tags.renameObjectTagValues(trx, tagId, tag.title, title);
      }
      // An image tag's title is part of the annotation of every image it is attached to.
      if (scope === 'images' && tag.title !== title) await recordAnnotationsRewritten(trx, teamId, await tags.imagesCarryingTag(trx, tagId, MAX_REWRITE_EVENTS));
      await recordChangedStates(trx, revisions, states);
      await projects.touchProject(trx, projectId);
      return (await tags.findTag(trx, projectId, scope, tagId))!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTitle(scope, change.title ?? '');
    throw error;
  }
}

/** Deletes the tag; a figure tag's title is first taken out of every object that carried it. */
export async function deleteTag(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  tagId: number,
  scope: TagScope,
  revisions: RevisionPolicy,
  precondition?: TagPrecondition,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await requireProject(trx, teamId, projectId);
    const tag = await tags.findTag(trx, projectId, scope, tagId, { lock: true });
    if (!tag) throw notFound('tag', { projectId, tagId, type: scope });
    precondition?.(tag);
    const states = await statesBefore(trx, teamId, await tags.imagesUsingTag(trx, tagId, scope));
    if (scope === 'figures') {
      await recordAnnotationsRewritten(trx, teamId, await rewriteFigureTag(trx, tagId, (titles) => titles.filter((t) => t !== tag.title)));
      await tags.removeObjectTagValues(trx, tagId, tag.title);
    }
    // Read before the delete takes the attachments away; the events carry the ETags after it.
    const carrying = scope === 'images' ? await tags.imagesCarryingTag(trx, tagId, MAX_REWRITE_EVENTS) : [];
    await tags.deleteTag(trx, tagId);
    await recordChangedStates(trx, revisions, states);
    await recordAnnotationsRewritten(trx, teamId, carrying);
    await projects.touchProject(trx, projectId);
  });
}

/**
 * The value type and possible values the tag has after `change`. A change of either must leave every
 * value the tag already carries valid: a value some image or object still has is a 409 that says
 * which and how many carry it.
 */
async function nextValueRule(db: Kysely<Database>, tag: ProjectTagRow, change: TagChange): Promise<ValueRule> {
  const before = tag.value_type as TagValueType;
  const valueType = change.valueType ?? before;
  if (change.valueType === undefined && change.values === undefined) return { title: tag.title, valueType, values: possibleValuesOf(tag.possible_values) };
  const given = change.values ?? (valueType === before ? (possibleValuesOf(tag.possible_values) ?? undefined) : undefined);
  checkPossibleValues(valueType, given);
  const rule: ValueRule = { title: tag.title, valueType, values: given ?? null };
  const usage = await tagUsage(db, tag, { objects: false });
  for (const [text, count] of usage.values) {
    const value = JSON.parse(text) as TagValue;
    const problem = valueProblem(rule, value);
    if (problem) {
      const carriers = tag.scope === 'images' ? `${count} image${count === 1 ? '' : 's'}` : `${count} object${count === 1 ? '' : 's'}`;
      throw conflict(`${carriers} ${count === 1 ? 'carries' : 'carry'} the value ${JSON.stringify(value)}, which the change would not allow (${problem}); change or remove it there first`, {
        value,
        count,
      });
    }
  }
  return rule;
}

/** How many images (and, for a figure tag, objects) carry the tag, and how many carry each value (as JSON text). */
export interface TagUsage {
  images: number;
  objects?: number;
  values: Map<string, number>;
}

/**
 * The tag's usage; `objects: false` leaves a figure tag's objects uncounted (it reads every image's
 * objects); `visibleTo` counts the images that reader sees, without it every image, the honeypot copies
 * in jobs too (every value they carry must stay valid too).
 */
export async function tagUsage(db: Kysely<Database>, tag: Pick<ProjectTagRow, 'id' | 'scope' | 'title'>, options: { objects: boolean; visibleTo?: DatasetReader }): Promise<TagUsage> {
  if (tag.scope === 'images') return tags.imageTagUsage(db, tag.id, options);
  const images = await tags.imagesUsingFigureTagWithValues(db, tag.id, options);
  const values = new Map<string, number>();
  let objects = 0;
  for (const image of images) {
    if (options.objects) for (const o of JSON.parse(image.objectsJson) as AnnotationObject[]) if (o.tags?.includes(tag.title)) objects += 1;
    for (const own of Object.values(parseObjectTagValues(image.objectTagValues))) {
      if (!Object.hasOwn(own, tag.title)) continue;
      const key = JSON.stringify(own[tag.title]);
      values.set(key, (values.get(key) ?? 0) + 1);
    }
  }
  return { images: images.length, ...(options.objects ? { objects } : {}), values };
}

/**
 * The id of the tag `ref` names in the project and scope. A missing title is created (as `createAs`)
 * when `createAs` is given; otherwise a missing tag is a 404.
 */
export async function resolveTag(
  db: Kysely<Database>,
  projectId: number,
  scope: TagScope,
  ref: TagRef,
  createAs?: number,
): Promise<number> {
  if (ref.id !== undefined) {
    const tag = await tags.findTag(db, projectId, scope, ref.id);
    if (!tag) throw notFound('tag', { id: ref.id });
    return tag.id;
  }
  checkTitle(ref.title);
  const tag = await tags.findTagByTitle(db, projectId, scope, ref.title);
  if (tag) return tag.id;
  if (createAs === undefined) throw notFound('tag', { title: ref.title });
  const ensured = await tags.ensureTag(db, { projectId, scope, title: ref.title, hotkey: '', createdBy: createAs });
  if (ensured.created) await projects.touchProject(db, projectId);
  return ensured.id;
}

/**
 * The ids of every tag the refs name, in ref order, or a 404 naming the first ref that names no tag
 * of the project and scope.
 */
export async function resolveExistingTags(
  db: Kysely<Database>,
  projectId: number,
  scope: TagScope,
  refs: TagRef[],
): Promise<number[]> {
  const ids = refs.flatMap((r) => (r.id !== undefined ? [r.id] : []));
  const titles = refs.flatMap((r) => (r.id === undefined ? [r.title] : []));
  const found = await tags.findTagsByIdOrTitle(db, projectId, scope, [...new Set(ids)], [...new Set(titles)]);
  const byId = new Set(found.map((t) => t.id));
  const idByTitle = new Map(found.map((t) => [t.title, t.id]));
  return refs.map((ref, index) => {
    if (ref.id !== undefined) {
      if (!byId.has(ref.id)) throw notFound('tag', { index, id: ref.id });
      return ref.id;
    }
    const id = idByTitle.get(ref.title);
    if (id === undefined) throw notFound('tag', { index, title: ref.title });
    return id;
  });
}

/** Applies `change` to the tag list of every object of every image that uses the figure tag; answers the images rewritten. */
async function rewriteFigureTag(
  db: Kysely<Database>,
  tagId: number,
  change: (titles: string[]) => string[],
): Promise<number[]> {
  return rewriteImageObjects(db, await tags.imagesUsingFigureTag(db, tagId), (objects) => changeObjectTags(objects, change));
}

/** The objects with their tag lists changed; null when no list changed. */
function changeObjectTags(objects: AnnotationObject[], change: (titles: string[]) => string[]): AnnotationObject[] | null {
  let changed = false;
  const rewritten = objects.map((object) => {
    const before = object.tags ?? [];
    // A title may appear once per object; a rename onto a title the object already has merges them.
    const after = [...new Set(change(before))];
    if (after.length === before.length && after.every((t, i) => t === before[i])) return object;
    changed = true;
    return { ...object, tags: after };
  });
  return changed ? rewritten : null;
}
