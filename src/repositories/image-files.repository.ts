// What serving an image's bytes needs to know of it: whose it is, and what its blob is.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export interface ImageFileRow {
  teamId: number;
  hash: string;
  mediaType: string;
  size: number;
}

/** The image `imageId` with its team and blob, whoever's it is (the caller checks the team). */
export async function findImageFile(db: Kysely<Database>, imageId: number): Promise<ImageFileRow | undefined> {
  const row = await db
    .selectFrom('images')
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .innerJoin('blobs', 'blobs.hash', 'images.hash')
    .select(['projects.team_id as teamId', 'images.hash as hash', 'blobs.media_type as mediaType', 'blobs.size as size'])
    .where('images.id', '=', imageId)
    .executeTakeFirst();
  return row && { teamId: row.teamId, hash: row.hash, mediaType: row.mediaType, size: Number(row.size) };
}
