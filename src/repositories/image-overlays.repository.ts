// The stored objects of several images at once, of one team's projects only.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

/** Each found image's objects text (stored-objects.ts), by image id; another team's images are absent. */
export async function storedObjectsOf(db: Kysely<Database>, teamId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .select(['images.id', 'images.objects_json'])
    .where('images.id', 'in', ids)
    .where('projects.team_id', '=', teamId)
    .execute();
  return new Map(rows.map((r) => [r.id, r.objects_json]));
}
