// Split leakage: groups of a version's images that are exact copies (the same bytes) or near
// duplicates (perceptual hashes within a distance, the rule of the near-duplicates report) and sit in
// two or more of its subsets, so a model would be evaluated on what it was trained on.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import * as versions from '../repositories/versions.repository.ts';
import { UnionFind, distanceBetween, forEachNearPair, packHashes } from './hamming-pairs.ts';
import { MAX_SEARCHED_IMAGES } from './near-duplicates.service.ts';
import { AppError } from '../errors.ts';
import { requireVersion } from './versions.service.ts';

/** Images of a group, and pairs of a group, answered at most. */
export const LEAK_IMAGES_SHOWN = 100;
export const LEAK_PAIRS_SHOWN = 100;

export interface LeakImage {
  imageId: number;
  name: string;
  dataset: string;
  subset: string;
}

export interface LeakGroup {
  size: number;
  subsets: { subset: string; count: number }[];
  images: LeakImage[];
  /** Pairs of the group's images in different subsets within the distance, nearest first: their pHash distance (0 and `sameBytes` for exact copies). */
  pairs: { a: number; b: number; distance: number; sameBytes: boolean }[];
}

export interface LeakageReport {
  versionId: number;
  maxDistance: number;
  images: number;
  /** Images whose blobs have no perceptual hashes yet: compared by their bytes only. */
  pending: number;
  groupCount: number;
  imagesInGroups: number;
  offset: number;
  groups: LeakGroup[];
}

export async function versionLeakage(db: Kysely<Database>, teamId: number, versionId: number, request: { maxDistance: number; limit: number; offset: number }): Promise<LeakageReport> {
  await requireVersion(db, teamId, versionId);
  const list = await versions.versionHashedImages(db, versionId);
  if (list.length > MAX_SEARCHED_IMAGES) throw new AppError('PAYLOAD_TOO_LARGE', `leakage is searched among at most ${MAX_SEARCHED_IMAGES} images`, { images: list.length });
  // One entry per blob: images of the same bytes share it. Blobs with hashes come first, so the
  // near-pair search sees only those.
  const entryOf = new Map<string, number>();
  const hashed = list.filter((image) => image.phash !== null && image.dhash !== null);
  const phashes: string[] = [];
  const dhashes: string[] = [];
  for (const image of hashed) {
    if (entryOf.has(image.hash)) continue;
    entryOf.set(image.hash, phashes.length);
    phashes.push(image.phash!);
    dhashes.push(image.dhash!);
  }
  let entries = phashes.length;
  for (const image of list) if (!entryOf.has(image.hash)) entryOf.set(image.hash, entries++);
  const packed = { phash: packHashes(phashes), dhash: packHashes(dhashes) };
  const sets = new UnionFind(entries);
  forEachNearPair(packed, request.maxDistance, (i, j) => sets.union(i, j));

  const byRoot = new Map<number, versions.VersionHashedImage[]>();
  for (const image of list) {
    const root = sets.find(entryOf.get(image.hash)!);
    const group = byRoot.get(root);
    if (group) group.push(image);
    else byRoot.set(root, [image]);
  }
  const leaking = [...byRoot.values()]
    .filter((g) => new Set(g.map((image) => image.subset)).size > 1)
    .sort((a, b) => b.length - a.length || a[0]!.image_id - b[0]!.image_id);
  const distance = (a: versions.VersionHashedImage, b: versions.VersionHashedImage): number => {
    if (a.hash === b.hash) return 0;
    return distanceBetween(packed.phash, entryOf.get(a.hash)!, packed.phash, entryOf.get(b.hash)!);
  };
  return {
    versionId,
    maxDistance: request.maxDistance,
    images: list.length,
    pending: list.length - hashed.length,
    groupCount: leaking.length,
    imagesInGroups: leaking.reduce((sum, g) => sum + g.length, 0),
    offset: request.offset,
    groups: leaking.slice(request.offset, request.offset + request.limit).map((g) => {
      const counts = new Map<string, number>();
      for (const image of g) counts.set(image.subset, (counts.get(image.subset) ?? 0) + 1);
      const pairs: LeakGroup['pairs'] = [];
      for (let i = 0; i < g.length && pairs.length < LEAK_PAIRS_SHOWN * 4; i++) {
        for (let j = i + 1; j < g.length && pairs.length < LEAK_PAIRS_SHOWN * 4; j++) {
          const [a, b] = [g[i]!, g[j]!];
          if (a.subset === b.subset) continue;
          // A group is joined by near pairs, so two of its images may be further apart: only near ones are pairs.
          const d = distance(a, b);
          if (d <= request.maxDistance) pairs.push({ a: a.image_id, b: b.image_id, distance: d, sameBytes: a.hash === b.hash });
        }
      }
      return {
        size: g.length,
        subsets: [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([subset, count]) => ({ subset, count })),
        images: g.slice(0, LEAK_IMAGES_SHOWN).map((image) => ({ imageId: image.image_id, name: image.name, dataset: image.dataset_title, subset: image.subset })),
        pairs: pairs.sort((x, y) => x.distance - y.distance || x.a - y.a || x.b - y.b).slice(0, LEAK_PAIRS_SHOWN),
      };
    }),
  };
}
