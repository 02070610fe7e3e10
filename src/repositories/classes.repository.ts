// A project's classes, and the images whose stored objects name one of them by title.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import { containsText } from '../db/json-text.ts';
import type { ClassRow, Database } from '../db/types.ts';
import type { ClassShape } from '../formats/canonical.ts';
import { type DatasetReader, hiddenDatasetsOf } from './hidden-datasets.ts';

/** A class as API v2 shows it. */
export interface ClassResource {
  id: number;
  projectId: number;
  title: string;
  shape: ClassShape;
  color: string;
  createdAt: string;
}

export const toClassResource = (r: ClassRow): ClassResource => ({
  id: r.id,
  projectId: r.project_id,
  title: r.title,
  shape: r.shape as ClassShape,
  color: r.color,
  createdAt: r.created_at,
});

/** Up to `limit` of the project's classes after `afterId`, in id order. */
export async function pageClasses(db: Kysely<Database>, projectId: number, afterId: number | undefined, limit: number): Promise<ClassRow[]> {
  let select = db.selectFrom('classes').selectAll().where('project_id', '=', projectId);
  if (afterId !== undefined) select = select.where('id', '>', afterId);
  return select.orderBy('id').limit(limit).execute();
}

export async function countClasses(db: Kysely<Database>, projectId: number): Promise<number> {
  const row = await db.selectFrom('classes').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The colours of the project's classes, in id order. */
export async function classColors(db: Kysely<Database>, projectId: number): Promise<string[]> {
  const rows = await db.selectFrom('classes').select('color').where('project_id', '=', projectId).orderBy('id').execute();
  return rows.map((r) => r.color);
}

/** The class if it lies in a project of the team; with `lock`, its row is locked on PostgreSQL. */
export async function findClass(
  db: Kysely<Database>,
  teamId: number,
  classId: number,
  options: { lock?: boolean } = {},
): Promise<ClassRow | undefined> {
  let query = db
    .selectFrom('classes')
    .innerJoin('projects', 'projects.id', 'classes.project_id')
    .selectAll('classes')
    .where('classes.id', '=', classId)
    .where('projects.team_id', '=', teamId);
  if (options.lock && isPostgres(db)) query = query.forUpdate('classes');
  return query.executeTakeFirst();
}

/** Inserts the class; a title already used in the project raises the unique violation. */
export async function insertClass(db: Kysely<Database>, projectId: number, c: { title: string; shape: ClassShape; color: string }): Promise<number> {
  const row = await db
    .insertInto('classes')
    .values({ project_id: projectId, title: c.title, shape: c.shape, color: c.color, created_at: isoNow() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Sets title and colour; a title already used in the project raises the unique violation. */
export async function updateClass(db: Kysely<Database>, classId: number, change: { title: string; color: string }): Promise<void> {
  await db.updateTable('classes').set(change).where('id', '=', classId).execute();
}

export async function deleteClass(db: Kysely<Database>, classId: number): Promise<void> {
  await db.deleteFrom('classes').where('id', '=', classId).execute();
}

/**
 * Up to `limit` of the project's images after `afterId` whose stored objects may name the class, with
 * those objects, in id order. Objects are stored serialised with `classTitle` first
 * (serializeObjects), so an object of the class starts with exactly this text, which no string inside
 * the JSON can contain (its quotes would be escaped). The caller still reads the objects: this only
 * narrows which images it reads.
 */
export async function imagesNamingClass(
  db: Kysely<Database>,
  projectId: number,
  title: string,
  afterId: number,
  limit: number,
  options: { visibleTo?: DatasetReader } = {},
): Promise<{ id: number; objectsJson: string }[]> {
  let query = db
    .selectFrom('images')
    .select(['id', 'objects_json'])
    .where('project_id', '=', projectId)
    .where('id', '>', afterId)
    .where(containsText(db, 'objects_json', `{"classTitle":${JSON.stringify(title)},`));
  if (options.visibleTo) query = query.where('dataset_id', 'not in', hiddenDatasetsOf(db, projectId, options.visibleTo));
  const rows = await query.orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ id: r.id, objectsJson: r.objects_json }));
}
