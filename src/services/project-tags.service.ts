// Project tags as API v2 reaches them: by the tag's id alone, both scopes in one list, with If-Match.
// The rules (titles unique per project and scope, figure tags kept in step with the objects that
// carry them) are tags.service.ts's, shared with v1.
import type { Kysely } from 'kysely';
import type { Database, ProjectTagRow } from '../db/types.ts';
import { notFound } from '../errors.ts';
import type { TagValueType } from '../formats/canonical.ts';
import * as tagRows from '../repositories/tags.repository.ts';
import type { TagResource, TagScope } from '../repositories/tags.repository.ts';
import type { RevisionPolicy } from './annotation-revisions.service.ts';
import { type Page, type PageRequest, pageOfRows } from './paging.ts';
import { checkIfMatch } from './preconditions.ts';
import { type Caller, readerOf } from './project-access.ts';
import { requireProject } from './projects.service.ts';
import * as tags from './tags.service.ts';

export async function pageOfTags(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  request: PageRequest & { scope?: TagScope },
): Promise<Page<TagResource>> {
  await requireProject(db, teamId, projectId);
  const filter = { projectId, scope: request.scope };
  const { rows, nextAfterId } = pageOfRows(await tagRows.pageTags(db, { ...filter, afterId: request.afterId, limit: request.limit + 1 }), request.limit);
  return { items: rows.map(tagRows.toTagResource), nextAfterId, ...(request.total ? { total: await tagRows.countTags(db, filter) } : {}) };
}

export async function createProjectTag(
  db: Kysely<Database>,
  caller: { teamId: number; userId: number },
  projectId: number,
  input: { title: string; scope: TagScope; hotkey?: string; valueType?: TagValueType; values?: string[] },
): Promise<TagResource> {
  const id = await tags.createTag(db, caller, projectId, input);
  return describeProjectTag(db, caller.teamId, id);
}

export async function describeProjectTag(db: Kysely<Database>, teamId: number, tagId: number): Promise<TagResource> {
  return tagRows.toTagResource(await requireTag(db, teamId, tagId));
}

/**
 * How many images (and, for an object tag, objects) of the project as its gallery shows it carry the
 * tag: what its delete takes away there. Honeypot copies in jobs are not counted.
 */
export async function projectTagUsage(db: Kysely<Database>, caller: Caller, tagId: number): Promise<{ images: number; objects?: number }> {
  const tag = await requireTag(db, caller.teamId, tagId);
  const usage = await tags.tagUsage(db, tag, { objects: true, visibleTo: await readerOf(db, caller, tag.project_id) });
  return { images: usage.images, ...(usage.objects !== undefined ? { objects: usage.objects } : {}) };
}

/** Renames the tag, sets its hotkey, value type or values, if `ifMatch` (when given) still names it as it is. */
export async function changeProjectTag(
  db: Kysely<Database>,
  teamId: number,
  tagId: number,
  change: tags.TagChange,
  ifMatch: string | undefined,
  revisions: RevisionPolicy,
): Promise<TagResource> {
  const tag = await requireTag(db, teamId, tagId);
  const changed = await tags.changeTag(db, teamId, tag.project_id, tagId, tag.scope as TagScope, change, revisions, (current) =>
    checkIfMatch(tagRows.toTagResource(current), ifMatch),
  );
  return tagRows.toTagResource(changed);
}

export async function removeProjectTag(db: Kysely<Database>, teamId: number, tagId: number, ifMatch: string | undefined, revisions: RevisionPolicy): Promise<void> {
  const tag = await requireTag(db, teamId, tagId);
  await tags.deleteTag(db, teamId, tag.project_id, tagId, tag.scope as TagScope, revisions, (current) => checkIfMatch(tagRows.toTagResource(current), ifMatch));
}

/** The tag, or a 404 that reads the same whether it is missing or another team's. */
async function requireTag(db: Kysely<Database>, teamId: number, tagId: number): Promise<ProjectTagRow> {
  const tag = await tagRows.findTagOfTeam(db, teamId, tagId);
  if (!tag) throw notFound('tag', { tagId });
  return tag;
}
