// What near-duplicate searches read: the images of a project or a team with the perceptual hashes of
// their blobs, and those still without.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { type DatasetReader, type ManagedProjects, hiddenDatasetsOf, shownDatasets } from './hidden-datasets.ts';

export interface HashedImage {
  id: number;
  name: string;
  datasetId: number;
  projectId: number;
  /** The blob's SHA-256: images of the same bytes share their hashes. */
  hash: string;
  phash: string;
  dhash: string;
}

/** Images whose blobs have perceptual hashes, as HashedImage, in any dataset. */
function imagesWithHashes(db: Kysely<Database>) {
  return db
    .selectFrom('images')
    .innerJoin('blobs', 'blobs.hash', 'images.hash')
    .select(['images.id as id', 'images.name as name', 'images.dataset_id as datasetId', 'images.project_id as projectId', 'images.hash as hash', 'blobs.phash as phash', 'blobs.dhash as dhash'])
    .where('blobs.phash', 'is not', null)
    .where('blobs.dhash', 'is not', null);
}

function hashedImages(db: Kysely<Database>, managed: ManagedProjects) {
  return (
    imagesWithHashes(db)
      // A job's honeypots are copies of ground-truth images, not duplicates anyone made; the ground truth
      // itself, in a managers-only dataset, is their managers' alone (docs/jobs.md, Quality).
      .innerJoin('datasets', 'datasets.id', 'images.dataset_id')
      .where((eb) => shownDatasets(eb, managed))
  );
}

/** The images of the project whose blobs have perceptual hashes, in id order. */
export async function hashedImagesOfProject(db: Kysely<Database>, projectId: number, reader: DatasetReader): Promise<HashedImage[]> {
  return (await hashedImages(db, reader === 'manager' ? 'all' : 'none').where('images.project_id', '=', projectId).orderBy('images.id').execute()) as HashedImage[];
}

/** One image with its blob's perceptual hashes, whatever its dataset (a honeypot's is hidden). */
export async function hashedImage(db: Kysely<Database>, imageId: number): Promise<HashedImage | undefined> {
  return (await imagesWithHashes(db).where('images.id', '=', imageId).executeTakeFirst()) as HashedImage | undefined;
}

/** The images of every project of the team whose blobs have perceptual hashes, in id order. */
export async function hashedImagesOfTeam(db: Kysely<Database>, teamId: number, managed: ManagedProjects): Promise<HashedImage[]> {
  return (await hashedImages(db, managed)
    .innerJoin('projects', 'projects.id', 'images.project_id')
    .where('projects.team_id', '=', teamId)
    .orderBy('images.id')
    .execute()) as HashedImage[];
}

/** How many images the project holds, and how many of them have no perceptual hashes yet. */
export async function countProjectImages(db: Kysely<Database>, projectId: number, reader: DatasetReader): Promise<{ images: number; unhashed: number }> {
  const row = await db
    .selectFrom('images')
    .innerJoin('blobs', 'blobs.hash', 'images.hash')
    .select((eb) => [eb.fn.countAll<number | string>().as('images'), eb.fn.count<number | string>('images.id').filterWhere('blobs.phash', 'is', null).as('unhashed')])
    .where('images.project_id', '=', projectId)
    .where('images.dataset_id', 'not in', hiddenDatasetsOf(db, projectId, reader))
    .executeTakeFirstOrThrow();
  return { images: Number(row.images), unhashed: Number(row.unhashed) };
}

/** The distinct blobs of the project's images that have no perceptual hashes yet, at most `limit`. */
export async function unhashedBlobsOfProject(db: Kysely<Database>, projectId: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('images')
    .innerJoin('blobs', 'blobs.hash', 'images.hash')
    .select('images.hash')
    .distinct()
    .where('images.project_id', '=', projectId)
    .where('blobs.phash', 'is', null)
    .orderBy('images.hash')
    .limit(limit)
    .execute();
  return rows.map((r) => r.hash);
}

/** Dataset titles by id. */
export async function datasetTitles(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('datasets').select(['id', 'title']).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((r) => [r.id, r.title]));
}
