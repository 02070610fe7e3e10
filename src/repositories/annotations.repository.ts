// Pages of v1 annotation records. Objects are stored already serialised in record order, so a page is
// assembled from stored text without parsing it: the cost of a page is reading it, not re-encoding it.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export interface AnnotationPageQuery {
  projectId: number;
  datasetIds?: number[];
  limit: number;
  offset: number;
}

/** Image-level tag titles (scope `images`) of each image, in tag id order. */
async function tagsByImage(db: Kysely<Database>, imageIds: number[]): Promise<Map<number, string[]>> {
  const byImage = new Map<number, string[]>();
  if (imageIds.length === 0) return byImage;
  const rows = await db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select(['image_tags.image_id', 'project_tags.title'])
    .where('image_tags.image_id', 'in', imageIds)
    .orderBy('project_tags.id')
    .execute();
  for (const row of rows) {
    const list = byImage.get(row.image_id);
    if (list) list.push(row.title);
    else byImage.set(row.image_id, [row.title]);
  }
  return byImage;
}

/** The page as the JSON text of an array of annotation records, ordered by image id. */
export async function annotationPageJson(db: Kysely<Database>, query: AnnotationPageQuery): Promise<string> {
  let select = db
    .selectFrom('images')
    .select(['id', 'name', 'width', 'height', 'description', 'objects_json'])
    .where('project_id', '=', query.projectId);
  if (query.datasetIds) select = select.where('dataset_id', 'in', query.datasetIds);
  const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
  if (rows.length === 0) return '[]';
  const tags = await tagsByImage(
    db,
    rows.map((r) => r.id),
  );
  const parts: string[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i += 1) {
    const r = rows[i]!;
    const imageTags = tags.get(r.id);
    parts[i] =
      `{"imageId":${r.id},"data":{"description":${JSON.stringify(r.description)},` +
      `"tags":${imageTags ? JSON.stringify(imageTags) : '[]'},"name":${JSON.stringify(r.name)},` +
      `"size":{"width":${r.width},"height":${r.height}},"objects":${r.objects_json}}}`;
  }
  return `[${parts.join(',')}]`;
}
