// An image tag renamed across a project, with one revision per image that carries it.
//
//   node --import tsx bench/tag-rename.ts [--db sqlite|postgres] [--images 10000] [--objects 10]
//                                         [--database-url URL]
//
// Seeds a fresh database with N images of M polygons each, every one carrying the image tag `wet`,
// then times, in this process and one after another: a change of the tag's hotkey only (the same
// transaction, no annotation changes: the floor), and two renames (each records N revisions and
// stores the N states they replaced). Reported: each one's time, and the rows and snapshot bytes
// the renames added.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { isoNow } from '../src/clock.ts';
import { type AnnotationObject, serializeObjects } from '../src/formats/canonical.ts';
import { insertImages } from '../src/repositories/images.repository.ts';
import { insertProject } from '../src/repositories/projects.repository.ts';
import { ensureTeam } from '../src/repositories/teams.repository.ts';
import { DEFAULT_TEAM } from '../src/services/keys.service.ts';
import { taskAuthor } from '../src/services/annotation-revisions.service.ts';
import { changeTag } from '../src/services/tags.service.ts';
import { benchDatabase, parseDbChoice } from './databases.ts';
import { DEFAULT_DATABASE_URL, positive } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    images: { type: 'string', default: '10000' },
    objects: { type: 'string', default: '10' },
    'database-url': { type: 'string', default: DEFAULT_DATABASE_URL },
  },
});
const IMAGES = positive('images', args.images);
const OBJECTS = positive('objects', args.objects);
const bench = benchDatabase(parseDbChoice(args.db), `tag_rename_i${IMAGES}_o${OBJECTS}`, args['database-url']);

await bench.reset();
const ctx = await bench.open();
const db = ctx.db.kysely;
try {
  const now = isoNow();
  const teamId = await ensureTeam(db, DEFAULT_TEAM);
  const projectId = await insertProject(db, teamId, 'bench tag rename');
  await db.insertInto('classes').values({ project_id: projectId, title: 'car', shape: 'polygon', color: '#E6194B', created_at: now }).execute();
  const dataset = await db.insertInto('datasets').values({ project_id: projectId, title: 'ds', size: 0, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
  const tag = await db.insertInto('project_tags').values({ project_id: projectId, scope: 'images', title: 'wet', hotkey: '', created_by: null, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
  const hash = createHash('sha256').update('bench tag rename').digest('base64');
  await db.insertInto('blobs').values({ hash, size: 1000, media_type: 'image/jpeg', width: 640, height: 480, created_at: now }).execute();
  for (let from = 0; from < IMAGES; from += 1000) {
    await db.transaction().execute(async (trx) => {
      const batch = Array.from({ length: Math.min(1000, IMAGES - from) }, (_, k) => {
        const n = from + k;
        const objects: AnnotationObject[] = Array.from({ length: OBJECTS }, (_, o) => ({
          classTitle: 'car',
          description: '',
          tags: [],
          bitmap: null,
          points: { exterior: [[n % 600, o], [(n % 600) + 20, o + 5], [(n % 600) + 10, o + 30]], interior: [] },
        }));
        return { datasetId: dataset.id, projectId, name: `img-${n}.jpg`, hash, size: 1000, width: 640, height: 480, objectsJson: serializeObjects(objects) };
      });
      const ids = await insertImages(trx, batch);
      await trx.insertInto('image_tags').values(ids.map((id) => ({ image_id: id, tag_id: tag.id, value: null }))).execute();
    });
  }
  const policy = { author: taskAuthor(teamId, 0), keep: ctx.config.operations.revisionsPerImage };
  const sizes = async () => {
    const revisions = await db.selectFrom('annotation_revisions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    const snapshots = await db.selectFrom('annotation_snapshots').select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string>(eb.fn('length', ['body'])).as('bytes')]).executeTakeFirstOrThrow();
    return { revisions: Number(revisions.n), snapshots: Number(snapshots.n), bytes: Number(snapshots.bytes ?? 0) };
  };
  const timed = async (label: string, change: { title?: string; hotkey?: string }) => {
    const before = await sizes();
    const start = performance.now();
    await changeTag(db, teamId, projectId, tag.id, 'images', change, policy);
    const ms = performance.now() - start;
    const after = await sizes();
    console.log(
      `| ${label} | ${(ms / 1000).toFixed(2)} s | ${((ms * 1000) / IMAGES).toFixed(0)} µs | ${after.revisions - before.revisions} | ${after.snapshots - before.snapshots} | ${((after.bytes - before.bytes) / 1024 / 1024).toFixed(2)} MiB |`,
    );
  };
  console.log(`${bench.choice}, ${IMAGES} images of ${OBJECTS} polygons, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('| change | time | a image | revisions added | snapshots added | snapshot bytes added |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  await timed('hotkey only (floor)', { hotkey: 'w' });
  await timed('rename wet → damp', { title: 'damp' });
  await timed('rename damp → soaked', { title: 'soaked' });
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await ctx.close();
}
