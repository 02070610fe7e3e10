// Revisions of image annotations and the snapshots of the states they replaced
// (0031_annotation_revisions.ts).
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { insertRows } from '../db/bulk-insert.ts';
import type { AnnotationRevisionsTable, Database } from '../db/types.ts';

export interface NewRevision {
  imageId: number;
  teamId: number;
  keyId: number | null;
  userId: number | null;
  taskId: number | null;
  createdAt: string;
  beforeHash: string | null;
  added: number;
  removed: number;
  changed: number;
}

export type RevisionRow = Omit<AnnotationRevisionsTable, 'id'> & { id: number };

const COLUMNS = ['image_id', 'team_id', 'key_id', 'user_id', 'task_id', 'created_at', 'before_hash', 'added', 'removed', 'changed'] as const;
/** Rows a statement: 5,000 parameters, under both dialects' limits. */
const ROWS_PER_STATEMENT = 500;

/** Stores a snapshot unless one of its hash is stored already. */
export async function saveSnapshot(db: Kysely<Database>, snapshot: { hash: string; body: Buffer; size: number }): Promise<void> {
  await db
    .insertInto('annotation_snapshots')
    .values(snapshot)
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();
}

export async function snapshotBody(db: Kysely<Database>, hash: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('annotation_snapshots').select('body').where('hash', '=', hash).executeTakeFirst();
  return row?.body;
}

export async function insertRevisions(db: Kysely<Database>, revisions: readonly NewRevision[]): Promise<void> {
  for (let i = 0; i < revisions.length; i += ROWS_PER_STATEMENT) {
    const rows = revisions
      .slice(i, i + ROWS_PER_STATEMENT)
      .map((r) => [r.imageId, r.teamId, r.keyId, r.userId, r.taskId, r.createdAt, r.beforeHash, r.added, r.removed, r.changed]);
    await insertRows(db, 'annotation_revisions', COLUMNS, rows);
  }
}

/** Images read at once by annotationStates, and trimmed at once by overfullImages. */
const STATES_PER_READ = 500;

/** An image's annotation columns and its tags (title, value), in tag id order, as a snapshot holds them. */
export interface AnnotationStateRow {
  id: number;
  description: string;
  objectsJson: string;
  objectIds: string | null;
  nextObjectId: number | null;
  objectTagValues: string | null;
  tags: { title: string; value: string | null }[];
}

/** The annotations of those of these images that lie in projects of the team, two statements a page. */
export async function annotationStates(db: Kysely<Database>, teamId: number, imageIds: readonly number[]): Promise<AnnotationStateRow[]> {
  const out: AnnotationStateRow[] = [];
  for (let i = 0; i < imageIds.length; i += STATES_PER_READ) {
    const page = imageIds.slice(i, i + STATES_PER_READ);
    const rows = await db
      .selectFrom('images')
      .innerJoin('projects', 'projects.id', 'images.project_id')
      .select(['images.id', 'images.description', 'images.objects_json', 'images.object_ids', 'images.next_object_id', 'images.object_tag_values'])
      .where('images.id', 'in', page)
      .where('projects.team_id', '=', teamId)
      .execute();
    const tags = await db
      .selectFrom('image_tags')
      .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
      .select(['image_tags.image_id', 'project_tags.title', 'image_tags.value'])
      .where('image_tags.image_id', 'in', page)
      .orderBy('image_tags.image_id')
      .orderBy('project_tags.id')
      .execute();
    const tagsOf = new Map<number, { title: string; value: string | null }[]>();
    for (const t of tags) {
      let list = tagsOf.get(t.image_id);
      if (!list) tagsOf.set(t.image_id, (list = []));
      list.push({ title: t.title, value: t.value });
    }
    for (const r of rows) {
      out.push({
        id: r.id,
        description: r.description,
        objectsJson: r.objects_json,
        objectIds: r.object_ids,
        nextObjectId: r.next_object_id,
        objectTagValues: r.object_tag_values,
        tags: tagsOf.get(r.id) ?? [],
      });
    }
  }
  return out;
}

/** Those of these images that have more than `keep` revisions. */
export async function overfullImages(db: Kysely<Database>, imageIds: readonly number[], keep: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < imageIds.length; i += STATES_PER_READ) {
    const rows = await db
      .selectFrom('annotation_revisions')
      .select('image_id')
      .where('image_id', 'in', imageIds.slice(i, i + STATES_PER_READ))
      .groupBy('image_id')
      .having((eb) => eb.fn.countAll(), '>', keep)
      .execute();
    out.push(...rows.map((r) => r.image_id));
  }
  return out;
}

/** The image's revisions newest first, those older than `beforeId` when given. */
export async function listRevisions(db: Kysely<Database>, imageId: number, page: { beforeId: number | null; limit: number }): Promise<RevisionRow[]> {
  let query = db.selectFrom('annotation_revisions').selectAll().where('image_id', '=', imageId);
  if (page.beforeId !== null) query = query.where('id', '<', page.beforeId);
  return query.orderBy('id', 'desc').limit(page.limit).execute();
}

export async function countRevisions(db: Kysely<Database>, imageId: number): Promise<number> {
  const row = await db.selectFrom('annotation_revisions').select((eb) => eb.fn.countAll<number | string>().as('n')).where('image_id', '=', imageId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findRevision(db: Kysely<Database>, imageId: number, revisionId: number): Promise<RevisionRow | undefined> {
  return db.selectFrom('annotation_revisions').selectAll().where('image_id', '=', imageId).where('id', '=', revisionId).executeTakeFirst();
}

/**
 * The revision of the image that followed `revisionId`, whose state before is the state `revisionId`
 * left; undefined when `revisionId` is the newest.
 */
export async function nextRevision(db: Kysely<Database>, imageId: number, revisionId: number): Promise<{ id: number; beforeHash: string | null } | undefined> {
  const row = await db
    .selectFrom('annotation_revisions')
    .select(['id', 'before_hash'])
    .where('image_id', '=', imageId)
    .where('id', '>', revisionId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row && { id: row.id, beforeHash: row.before_hash };
}

/** Removes the image's revisions past its newest `keep`; answers the snapshot hashes they named. */
export async function trimImageRevisions(db: Kysely<Database>, imageId: number, keep: number): Promise<string[]> {
  const oldestKept = await db
    .selectFrom('annotation_revisions')
    .select('id')
    .where('image_id', '=', imageId)
    .orderBy('id', 'desc')
    .offset(keep - 1)
    .limit(1)
    .executeTakeFirst();
  if (!oldestKept) return [];
  const rows = await db
    .deleteFrom('annotation_revisions')
    .where('image_id', '=', imageId)
    .where('id', '<', oldestKept.id)
    .returning('before_hash')
    .execute();
  return rows.flatMap((r) => (r.before_hash === null ? [] : [r.before_hash]));
}

/** Removes up to `limit` revisions made before `cutoff`; answers the snapshot hashes they named and how many went. */
export async function deleteRevisionsBefore(db: Kysely<Database>, cutoff: string, limit: number): Promise<{ count: number; hashes: string[] }> {
  const ids = db.selectFrom('annotation_revisions').select('id').where('created_at', '<', cutoff).orderBy('id').limit(limit);
  const rows = await db.deleteFrom('annotation_revisions').where('id', 'in', ids).returning('before_hash').execute();
  return { count: rows.length, hashes: rows.flatMap((r) => (r.before_hash === null ? [] : [r.before_hash])) };
}

/**
 * A snapshot no one names: no revision as the state it replaced, no image as its current content, no
 * version as the content it froze (annotation-contents.repository.ts).
 */
const unnamed = ({ not, exists, selectFrom, and }: ExpressionBuilder<Database, 'annotation_snapshots'>) =>
  and([
    not(exists(selectFrom('annotation_revisions').select(sql.lit(1).as('one')).whereRef('annotation_revisions.before_hash', '=', 'annotation_snapshots.hash'))),
    not(exists(selectFrom('images').select(sql.lit(1).as('one')).whereRef('images.annotation_hash', '=', 'annotation_snapshots.hash'))),
    not(exists(selectFrom('version_images').select(sql.lit(1).as('one')).whereRef('version_images.annotation_hash', '=', 'annotation_snapshots.hash'))),
  ]);

/** Removes the snapshots of these hashes that no one names any more. */
export async function deleteUnnamedSnapshots(db: Kysely<Database>, hashes: readonly string[]): Promise<void> {
  const unique = [...new Set(hashes)];
  for (let i = 0; i < unique.length; i += 1000) {
    await db
      .deleteFrom('annotation_snapshots')
      .where('hash', 'in', unique.slice(i, i + 1000))
      .where(unnamed)
      .execute();
  }
}

/** Removes every snapshot no one names (those of deleted images' revisions, and contents no image or version has any more); answers how many. */
export async function deleteOrphanSnapshots(db: Kysely<Database>): Promise<number> {
  const result = await db.deleteFrom('annotation_snapshots').where(unnamed).executeTakeFirst();
  return Number(result.numDeletedRows);
}
