// A large project written straight through the database and the blob store, as bench/export.ts seeds
// one: an import of thousands of images would take longer than the test that needs them.
import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import { isoNow } from '../../src/clock.ts';
import type { Context } from '../../src/context.ts';
import type { Database } from '../../src/db/types.ts';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import { insertDataset } from '../../src/repositories/datasets.repository.ts';
import { insertProject } from '../../src/repositories/projects.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { hashOf } from './factories.ts';

export interface SeededImage {
  dataset: string;
  name: string;
  hash: string;
}

export interface SeedOptions {
  team: string;
  title: string;
  images: number;
  /** Distinct blobs the images take their bytes from in turn (names stay distinct). */
  blobs: number;
  blobBytes: number;
  datasets: number;
}

const WIDTH = 64;
const HEIGHT = 48;

/** One polygon per image, its corners moved by the image's index. */
const objectsOf = (i: number): AnnotationObject[] => [
  { classTitle: 'thing', description: '', tags: [], bitmap: null, points: { exterior: [[1, 1], [40, 2 + (i % 30)], [20, 40]], interior: [] } },
];

/** Seeds the project; answers its id and its images in dataset and id order. */
export async function seedProject(ctx: Context, options: SeedOptions): Promise<{ projectId: number; images: SeededImage[] }> {
  const db = ctx.db.kysely;
  const now = isoNow();
  const projectId = await insertProject(db, await ensureTeam(db, options.team), options.title);
  await db.insertInto('classes').values({ project_id: projectId, title: 'thing', shape: 'polygon', color: '#123456', created_at: now }).execute();
  const blobs: { hash: string; size: number }[] = [];
  for (let b = 0; b < options.blobs; b += 1) {
    const bytes = randomBytes(options.blobBytes);
    const hash = hashOf(bytes);
    await ctx.blobs.putBytes(hash, bytes);
    blobs.push({ hash, size: bytes.length });
  }
  await db
    .insertInto('blobs')
    .values(blobs.map((b) => ({ hash: b.hash, size: b.size, media_type: 'image/png', width: WIDTH, height: HEIGHT, created_at: now })))
    .execute();
  const images: SeededImage[] = [];
  const perDataset = Math.ceil(options.images / options.datasets);
  for (let d = 0; d < options.datasets; d += 1) {
    const dataset = `part-${d + 1}`;
    const datasetId = await insertDataset(db, projectId, dataset);
    const count = Math.min(perDataset, options.images - d * perDataset);
    for (let start = 0; start < count; start += 500) {
      const rows: Insertable<Database['images']>[] = [];
      for (let k = start; k < Math.min(start + 500, count); k += 1) {
        const i = d * perDataset + k;
        const blob = blobs[i % blobs.length]!;
        const name = `img-${String(i).padStart(6, '0')}.png`;
        images.push({ dataset, name, hash: blob.hash });
        rows.push({
          dataset_id: datasetId,
          project_id: projectId,
          name,
          hash: blob.hash,
          size: blob.size,
          width: WIDTH,
          height: HEIGHT,
          description: '',
          objects_json: serializeObjects(objectsOf(i)),
          created_at: now,
          updated_at: now,
        });
      }
      await db.insertInto('images').values(rows).execute();
    }
  }
  return { projectId, images };
}
