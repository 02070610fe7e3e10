// Near-duplicates: the images of the team that look like one image, and a project's groups of images
// that look alike (resized, recompressed, slightly cropped or brightened copies), each flagged when it
// spans datasets, which is how the same picture ends up in both a training and a validation split.
// Read from the perceptual hashes of the images' blobs (made with their grid thumbnails); the pairs
// are found in memory (hamming-pairs.ts). The thumbnails task makes missing hashes: `hashProject`
// queues one for the images made before hashes were.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';
import { AppError, notFound } from '../errors.ts';
import * as images from '../repositories/images.repository.ts';
import * as nearDuplicates from '../repositories/near-duplicates.repository.ts';
import type { HashedImage } from '../repositories/near-duplicates.repository.ts';
import { type HashArrays, UnionFind, forEachNearPair, nearestTo, packHashes } from './hamming-pairs.ts';
import { requireProject } from './projects.service.ts';
import { type Caller, managedProjectsOf, readerOf } from './project-access.ts';
import { queueThumbnails } from './thumbnail-tasks.ts';

/** Images compared at once: past this a search takes seconds and the rows hundreds of megabytes. */
export const MAX_SEARCHED_IMAGES = 500_000;
/** Images listed in one group of the report; `size` says how many it holds. */
export const GROUP_IMAGES_SHOWN = 100;

export interface NearImage {
  id: number;
  name: string;
  datasetId: number;
  datasetTitle: string;
}

export interface SimilarImage extends NearImage {
  projectId: number;
  phashDistance: number;
  dhashDistance: number;
  /** The same bytes (SHA-256) as the image asked about. */
  sameBytes: boolean;
}

export interface SimilarImages {
  distance: number;
  /** False while the image's own hashes are not made yet: nothing can be compared then. */
  hashed: boolean;
  items: SimilarImage[];
}

export interface NearDuplicateGroup {
  size: number;
  crossDataset: boolean;
  datasets: { id: number; title: string; count: number }[];
  images: NearImage[];
}

export interface NearDuplicateReport {
  distance: number;
  images: number;
  /** Images without perceptual hashes yet (left out of the groups). */
  pending: number;
  groupCount: number;
  crossDatasetGroups: number;
  imagesInGroups: number;
  offset: number;
  groups: NearDuplicateGroup[];
}

function checkSize(count: number): void {
  if (count > MAX_SEARCHED_IMAGES) throw new AppError('PAYLOAD_TOO_LARGE', `near-duplicates are searched among at most ${MAX_SEARCHED_IMAGES} images`, { images: count });
}

/** The hashes of distinct blobs (images of the same bytes share one entry) and each image's entry. */
function hashArraysOf(list: HashedImage[]): { hashes: HashArrays; entryOf: Int32Array } {
  const entries = new Map<string, number>();
  const phashes: string[] = [];
  const dhashes: string[] = [];
  const entryOf = new Int32Array(list.length);
  list.forEach((image, i) => {
    let entry = entries.get(image.hash);
    if (entry === undefined) {
      entry = phashes.length;
      entries.set(image.hash, entry);
      phashes.push(image.phash);
      dhashes.push(image.dhash);
    }
    entryOf[i] = entry;
  });
  return { hashes: { phash: packHashes(phashes), dhash: packHashes(dhashes) }, entryOf };
}

export async function similarImages(db: Kysely<Database>, caller: Caller, imageId: number, distance: number, limit: number): Promise<SimilarImages> {
  const teamId = caller.teamId;
  const image = await images.findImageById(db, teamId, imageId);
  if (!image) throw notFound('image', { imageId });
  // The ground truth a honeypot copies (same bytes) is found only by the managers of its project.
  const team = await nearDuplicates.hashedImagesOfTeam(db, teamId, managedProjectsOf(caller));
  checkSize(team.length);
  // A honeypot is in no list (its dataset is hidden) but is answered as any image of its bytes is.
  const own = team.find((candidate) => candidate.id === imageId) ?? (await nearDuplicates.hashedImage(db, imageId));
  if (!own) return { distance, hashed: false, items: [] };
  const hashes = { phash: packHashes(team.map((t) => t.phash)), dhash: packHashes(team.map((t) => t.dhash)) };
  const query = { phash: packHashes([own.phash]), dhash: packHashes([own.dhash]) };
  const near = nearestTo(hashes, query, 0, distance)
    .filter((n) => team[n.index]!.id !== imageId)
    .slice(0, limit);
  const titles = await nearDuplicates.datasetTitles(db, [...new Set(near.map((n) => team[n.index]!.datasetId))]);
  return {
    distance,
    hashed: true,
    items: near.map((n) => {
      const found = team[n.index]!;
      return {
        id: found.id,
        name: found.name,
        datasetId: found.datasetId,
        datasetTitle: titles.get(found.datasetId) ?? '',
        projectId: found.projectId,
        phashDistance: n.phashDistance,
        dhashDistance: n.dhashDistance,
        sameBytes: found.hash === own.hash,
      };
    }),
  };
}

export interface ReportRequest {
  distance: number;
  limit: number;
  offset: number;
  /** Only the groups whose images lie in more than one dataset. */
  crossDatasetOnly: boolean;
}

export async function nearDuplicateReport(db: Kysely<Database>, caller: Caller, projectId: number, request: ReportRequest): Promise<NearDuplicateReport> {
  await requireProject(db, caller.teamId, projectId);
  const reader = await readerOf(db, caller, projectId);
  const counts = await nearDuplicates.countProjectImages(db, projectId, reader);
  checkSize(counts.images);
  const list = await nearDuplicates.hashedImagesOfProject(db, projectId, reader);
  const { hashes, entryOf } = hashArraysOf(list);
  const sets = new UnionFind(hashes.phash.length / 2);
  forEachNearPair(hashes, request.distance, (i, j) => sets.union(i, j));
  // Images (in id order) by the root of their blob's set: exact copies fall together too.
  const byRoot = new Map<number, HashedImage[]>();
  list.forEach((image, i) => {
    const root = sets.find(entryOf[i]!);
    const group = byRoot.get(root);
    if (group) group.push(image);
    else byRoot.set(root, [image]);
  });
  const found = [...byRoot.values()]
    .filter((g) => g.length > 1)
    .map((g) => ({ images: g, datasets: new Set(g.map((image) => image.datasetId)) }))
    .sort((a, b) => b.images.length - a.images.length || a.images[0]!.id - b.images[0]!.id);
  const crossDataset = found.filter((g) => g.datasets.size > 1);
  const chosen = request.crossDatasetOnly ? crossDataset : found;
  const page = chosen.slice(request.offset, request.offset + request.limit);
  const titles = await nearDuplicates.datasetTitles(db, [...new Set(page.flatMap((g) => [...g.datasets]))]);
  const titleOf = (id: number): string => titles.get(id) ?? '';
  return {
    distance: request.distance,
    images: counts.images,
    pending: counts.unhashed,
    groupCount: chosen.length,
    crossDatasetGroups: crossDataset.length,
    imagesInGroups: found.reduce((sum, g) => sum + g.images.length, 0),
    offset: request.offset,
    groups: page.map((g) => ({
      size: g.images.length,
      crossDataset: g.datasets.size > 1,
      datasets: [...g.datasets].sort((a, b) => a - b).map((id) => ({ id, title: titleOf(id), count: g.images.filter((image) => image.datasetId === id).length })),
      images: g.images.slice(0, GROUP_IMAGES_SHOWN).map((image) => ({ id: image.id, name: image.name, datasetId: image.datasetId, datasetTitle: titleOf(image.datasetId) })),
    })),
  };
}

/** Blobs handed to the thumbnails task in one go: its own limit is per task, this is per request. */
const MAX_QUEUED_BLOBS = 1_000_000;

/**
 * Queues the thumbnails task for the project's images that have no perceptual hashes yet (made
 * before hashes were, or whose task has not reached them); answers how many blobs and the task ids.
 */
export async function hashProject(ctx: Context, principal: { teamId: number; userId: number | null }, projectId: number): Promise<{ blobs: number; taskIds: number[] }> {
  const db = ctx.db.kysely;
  await requireProject(db, principal.teamId, projectId);
  const blobs = await nearDuplicates.unhashedBlobsOfProject(db, projectId, MAX_QUEUED_BLOBS);
  if (blobs.length === 0) return { blobs: 0, taskIds: [] };
  const taskIds = await db.transaction().execute((trx) => queueThumbnails(trx, principal, { hashes: blobs }));
  ctx.tasksQueued.notify();
  return { blobs: blobs.length, taskIds };
}
