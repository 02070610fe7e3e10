// What an export reads: the project's definitions once, then its images a page at a time, each as the
// ExportRecord a format writer takes. Rows become records here and nowhere else.
import type { Kysely } from 'kysely';
import type { CanonicalTag, ClassShape, TagScope, TagValueType } from '../formats/canonical.ts';
import type { ExportObject, ExportProject, ExportRecord } from '../formats/writer.ts';
import type { Database, ImageRow } from '../db/types.ts';
import { parseObjectTagValues, tagsWithValues } from '../formats/object-tag-values.ts';

/** An object as images.objects_json stores it: object tags by title; their values are in images.object_tag_values. */
type StoredObject = Omit<ExportObject, 'tags'> & { tags: string[] };

/** Value types kept as given; `oneof_string` too when its list of values is stored (a tag made before the list was kept has none). */
const GIVEN_TYPES = new Set(['any_number', 'any_string']);

/**
 * The project as a writer knows it before the first record: classes and tags in id order. A tag's
 * value type is the one it was given (by a meta.json, a client, or an import from the values it
 * read) when that is `any_number` or `any_string`; otherwise an image tag's is what its stored values
 * are (any string among them: strings; else numbers; none when it has no value anywhere). Undefined
 * when the project is gone.
 */
export async function exportProject(db: Kysely<Database>, projectId: number): Promise<ExportProject | undefined> {
  const project = await db.selectFrom('projects').select('title').where('id', '=', projectId).executeTakeFirst();
  if (!project) return undefined;
  const classes = await db.selectFrom('classes').select(['title', 'shape', 'color']).where('project_id', '=', projectId).orderBy('id').execute();
  const tags = await db.selectFrom('project_tags').select(['id', 'title', 'scope', 'value_type', 'possible_values']).where('project_id', '=', projectId).orderBy('id').execute();
  // Values are stored as JSON text: a string value starts with a quote.
  const kinds = await db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select((eb) => [
      'image_tags.tag_id as tagId',
      eb.fn.max(eb.case().when('image_tags.value', 'like', '"%').then(1).else(0).end()).as('strings'),
      eb.fn.max(eb.case().when('image_tags.value', 'is not', null).then(1).else(0).end()).as('values'),
    ])
    .where('project_tags.project_id', '=', projectId)
    .groupBy('image_tags.tag_id')
    .execute();
  const kindOf = new Map(kinds.map((k) => [k.tagId, k]));
  const valueType = (id: number): TagValueType => {
    const kind = kindOf.get(id);
    return Number(kind?.strings ?? 0) > 0 ? 'any_string' : Number(kind?.values ?? 0) > 0 ? 'any_number' : 'none';
  };
  return {
    title: project.title,
    classes: classes.map((c) => ({ title: c.title, shape: c.shape as ClassShape, color: c.color })),
    tags: tags.map((t) =>
      t.value_type === 'oneof_string' && t.possible_values !== null
        ? { title: t.title, scope: t.scope as TagScope, valueType: 'oneof_string' as const, values: JSON.parse(t.possible_values) as string[] }
        : { title: t.title, scope: t.scope as TagScope, valueType: GIVEN_TYPES.has(t.value_type) ? (t.value_type as TagValueType) : valueType(t.id) },
    ),
  };
}

/**
 * The project's datasets among `ids` (all of them when null), in id order. An export is read by every
 * role of the project: managers-only datasets (docs/jobs.md, Quality) are never among them.
 */
export async function exportDatasets(db: Kysely<Database>, projectId: number, ids: number[] | null): Promise<{ id: number; title: string }[]> {
  let query = db.selectFrom('datasets').select(['id', 'title']).where('project_id', '=', projectId).where('hidden', '=', 0).where('managers_only', '=', 0);
  if (ids) query = query.where('id', 'in', ids.length ? ids : [0]);
  return query.orderBy('id').execute();
}

/** How many images the datasets hold, and their bytes. */
export async function countImages(db: Kysely<Database>, datasetIds: number[]): Promise<{ images: number; bytes: number }> {
  if (datasetIds.length === 0) return { images: 0, bytes: 0 };
  const row = await db
    .selectFrom('images')
    .select((eb) => [eb.fn.countAll().as('images'), eb.fn.sum('size').as('bytes')])
    .where('dataset_id', 'in', datasetIds)
    .executeTakeFirstOrThrow();
  return { images: Number(row.images), bytes: Number(row.bytes ?? 0) };
}

/** Up to `limit` images of the dataset after image `afterId`, in id order, as records, with their ids and byte sizes. */
export async function imagePage(
  db: Kysely<Database>,
  dataset: { id: number; title: string },
  afterId: number,
  limit: number,
): Promise<{ id: number; size: number; record: ExportRecord }[]> {
  const rows = await db
    .selectFrom('images')
    .select(['id', 'name', 'hash', 'size', 'width', 'height', 'description', 'objects_json', 'object_ids', 'object_tag_values'])
    .where('dataset_id', '=', dataset.id)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (rows.length === 0) return [];
  const tagRows = await db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select(['image_tags.image_id', 'project_tags.title', 'image_tags.value'])
    .where(
      'image_tags.image_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('image_tags.image_id')
    .orderBy('image_tags.tag_id')
    .execute();
  const tagsOf = imageTagsById(tagRows);
  return rows.map((r) => ({ id: r.id, size: Number(r.size), record: storedRecord(r, dataset.title, tagsOf.get(r.id) ?? []) }));
}

/** The columns of a stored image that make its record: the same in a project's images and a version's. */
export type StoredImage = Pick<ImageRow, 'name' | 'hash' | 'width' | 'height' | 'description' | 'objects_json' | 'object_ids' | 'object_tag_values'>;

/** A stored image (of a project, or as a version froze it) as the record of `dataset`. */
/** Image tag rows (value as stored: JSON text) grouped by image, in the order given. */
export function imageTagsById(rows: readonly { image_id: number; title: string; value: string | null }[]): Map<number, CanonicalTag[]> {
  const tagsOf = new Map<number, CanonicalTag[]>();
  for (const t of rows) {
    const tag = { name: t.title, value: t.value === null ? null : (JSON.parse(t.value) as number | string) };
    const list = tagsOf.get(t.image_id);
    if (list) list.push(tag);
    else tagsOf.set(t.image_id, [tag]);
  }
  return tagsOf;
}

export function storedRecord(r: StoredImage, dataset: string, tags: CanonicalTag[]): ExportRecord {
  const objects = JSON.parse(r.objects_json) as StoredObject[];
  const values = parseObjectTagValues(r.object_tag_values);
  // The objects' ids (images.object_ids, null for 1..n) find their values.
  const ids = r.object_tag_values === null ? null : r.object_ids === null ? objects.map((_, k) => k + 1) : (JSON.parse(r.object_ids) as number[]);
  return {
    dataset,
    name: r.name,
    width: r.width,
    height: r.height,
    hash: r.hash,
    description: r.description,
    tags,
    objects: objects.map((o, k) => ({
      classTitle: o.classTitle,
      description: o.description,
      tags: ids ? tagsWithValues(o.tags, values, ids[k]!) : o.tags.map((name) => ({ name, value: null })),
      bitmap: o.bitmap,
      points: o.points,
    })),
  };
}

/**
 * What of an export's source is gone: 'project' when the project is, else the ids of the datasets
 * among `datasetIds` that are (empty when all are there).
 */
export async function missingSource(db: Kysely<Database>, projectId: number, datasetIds: readonly number[]): Promise<'project' | number[]> {
  const project = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
  if (!project) return 'project';
  if (datasetIds.length === 0) return [];
  const found = await db.selectFrom('datasets').select('id').where('project_id', '=', projectId).where('hidden', '=', 0).where('id', 'in', [...datasetIds]).execute();
  const there = new Set(found.map((d) => d.id));
  return datasetIds.filter((id) => !there.has(id));
}
