// The objects of a page of gallery tiles, for drawing over their thumbnails: one request and one query
// for a page, where reading each tile's annotation cost a request per tile.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import type { AnnotationObject } from '../formats/canonical.ts';
import { notFound, validation } from '../errors.ts';
import { storedObjectsOf } from '../repositories/image-overlays.repository.ts';

/** The answer as JSON text: the objects' points are sent as they are stored, without a schema pass. */
export async function imageOverlaysJson(db: Kysely<Database>, teamId: number, ids: number[], max: number): Promise<string> {
  const unique = [...new Set(ids)];
  if (unique.length > max) throw validation(`at most ${max} images at once`, { field: 'ids' });
  const stored = await storedObjectsOf(db, teamId, unique);
  const missing = unique.filter((id) => !stored.has(id));
  if (missing.length > 0) throw notFound('image', { imageIds: missing });
  const items = unique.map((id) => {
    const objects = JSON.parse(stored.get(id)!) as AnnotationObject[];
    return { id, objects: objects.map((o) => ({ classTitle: o.classTitle, bitmap: o.bitmap, points: o.points })) };
  });
  return JSON.stringify({ items });
}
