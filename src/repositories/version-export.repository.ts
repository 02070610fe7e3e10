// What an export or a DTL graph reads of a version: its classes in index order, its tags, and its
// images a page at a time as the ExportRecords a format writer takes, each with its annotation as
// the version froze it. Images are grouped (the records' `dataset`) by subset when the version has a
// split, else by the dataset they were in.
import type { Kysely } from 'kysely';
import type { ClassShape, TagScope, TagValueType } from '../formats/canonical.ts';
import type { ExportProject, ExportRecord } from '../formats/writer.ts';
import type { Database } from '../db/types.ts';
import { imageTagsById, storedRecord } from './export.repository.ts';
import { withContents } from './versions.repository.ts';

/** The column whose value a version's image is grouped by. */
export type VersionGroupColumn = 'subset' | 'dataset_title';

/** The version of the team's project named `name`, if there is one. */
export function findVersionNamed(db: Kysely<Database>, teamId: number, projectId: number, name: string): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('versions')
    .innerJoin('projects', 'projects.id', 'versions.project_id')
    .where('versions.project_id', '=', projectId)
    .where('versions.name', '=', name)
    .where('projects.team_id', '=', teamId)
    .select('versions.id')
    .executeTakeFirst();
}

/** Value types a version keeps as they were; any other is written as a string tag's. */
const KEPT_TYPES = new Set(['any_number', 'any_string', 'none']);

/**
 * The version as a writer knows it before the first record: the project's title, the version's
 * classes in index order (each with its index), and its tags; and when the version was made.
 * Undefined when the version is gone.
 */
export async function versionExportProject(db: Kysely<Database>, versionId: number): Promise<(ExportProject & { createdAt: string }) | undefined> {
  const version = await db
    .selectFrom('versions')
    .innerJoin('projects', 'projects.id', 'versions.project_id')
    .where('versions.id', '=', versionId)
    .select(['projects.title', 'versions.created_at'])
    .executeTakeFirst();
  if (!version) return undefined;
  const classes = await db.selectFrom('version_classes').where('version_id', '=', versionId).select(['idx', 'title', 'shape', 'color']).orderBy('idx').execute();
  const tags = await db.selectFrom('version_tags').where('version_id', '=', versionId).select(['title', 'scope', 'value_type']).orderBy('tag_id').execute();
  return {
    title: version.title,
    createdAt: version.created_at,
    classes: classes.map((c) => ({ title: c.title, shape: c.shape as ClassShape, color: c.color, index: c.idx })),
    tags: tags.map((t) => ({ title: t.title, scope: t.scope as TagScope, valueType: (KEPT_TYPES.has(t.value_type) ? t.value_type : 'any_string') as TagValueType })),
  };
}

/** What the version's images are grouped by: subset when it has a split, else dataset; undefined when the version is gone. */
export async function groupColumnOf(db: Kysely<Database>, versionId: number): Promise<VersionGroupColumn | undefined> {
  const row = await db.selectFrom('versions').where('id', '=', versionId).select('split').executeTakeFirst();
  if (!row) return undefined;
  return (JSON.parse(row.split) as { method: string }).method === 'none' ? 'dataset_title' : 'subset';
}

/** The version's groups (subsets or datasets) in title order. */
export async function versionGroups(db: Kysely<Database>, versionId: number, column: VersionGroupColumn): Promise<string[]> {
  const rows = await db.selectFrom('version_images').where('version_id', '=', versionId).select(column).distinct().orderBy(column).execute();
  return rows.map((r) => (r as Record<VersionGroupColumn, string>)[column]);
}

/** How many images the version holds, and the bytes of their blobs. */
export async function countVersionImages(db: Kysely<Database>, versionId: number): Promise<{ images: number; bytes: number }> {
  const row = await db
    .selectFrom('version_images')
    .leftJoin('blobs', 'blobs.hash', 'version_images.hash')
    .where('version_images.version_id', '=', versionId)
    .select((eb) => [eb.fn.countAll().as('images'), eb.fn.sum('blobs.size').as('bytes')])
    .executeTakeFirstOrThrow();
  return { images: Number(row.images), bytes: Number(row.bytes ?? 0) };
}

/** Whether the version is still there. */
export async function versionExists(db: Kysely<Database>, versionId: number): Promise<boolean> {
  return (await db.selectFrom('versions').where('id', '=', versionId).select('id').executeTakeFirst()) !== undefined;
}

/**
 * Up to `limit` images of the version's group after image `afterId`, in image id order, as records
 * (their `dataset` the group), with their ids and blob sizes.
 */
export async function versionImagePage(
  db: Kysely<Database>,
  versionId: number,
  group: { column: VersionGroupColumn; value: string },
  afterId: number,
  limit: number,
): Promise<{ id: number; size: number; record: ExportRecord }[]> {
  const rows = await db
    .selectFrom('version_images')
    .leftJoin('blobs', 'blobs.hash', 'version_images.hash')
    .where('version_images.version_id', '=', versionId)
    .where(`version_images.${group.column}`, '=', group.value)
    .where('version_images.image_id', '>', afterId)
    .select([
      'version_images.image_id',
      'version_images.name',
      'version_images.hash',
      'blobs.size',
      'version_images.width',
      'version_images.height',
      'version_images.annotation_hash',
    ])
    .orderBy('version_images.image_id')
    .limit(limit)
    .execute()
    .then((found) => withContents(db, found));
  if (rows.length === 0) return [];
  const tagRows = await db
    .selectFrom('version_image_tags')
    .innerJoin('version_tags', (join) => join.onRef('version_tags.version_id', '=', 'version_image_tags.version_id').onRef('version_tags.tag_id', '=', 'version_image_tags.tag_id'))
    .where('version_image_tags.version_id', '=', versionId)
    .where(
      'version_image_tags.image_id',
      'in',
      rows.map((r) => r.image_id),
    )
    .select(['version_image_tags.image_id', 'version_tags.title', 'version_image_tags.value'])
    .orderBy('version_image_tags.image_id')
    .orderBy('version_image_tags.tag_id')
    .execute();
  const tagsOf = imageTagsById(tagRows);
  return rows.map((r) => ({ id: r.image_id, size: Number(r.size ?? 0), record: storedRecord(r, group.value, tagsOf.get(r.image_id) ?? []) }));
}
