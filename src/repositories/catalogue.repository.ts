// Models (per team) and architectures (one catalogue for everybody).
import { type Kysely, sql } from 'kysely';
import { isoNow } from '../clock.ts';
import { isPostgres } from '../db/dialect.ts';
import type { ArchitectureRow, Database, ModelRow } from '../db/types.ts';

export interface ModelRecord {
  id: number;
  title: string;
  architectureId: number;
  createdAt: string;
  updatedAt: string;
  path: { bucket: string; objectName: string };
}

export interface ArchitectureRecord {
  id: number;
  title: string;
  description: string;
  categoryId: number;
  createdAt: string;
  updatedAt: string;
  trainImage: string;
  inferenceImage: string;
  deployImage: string;
}

const toModel = (r: ModelRow): ModelRecord => ({
  id: r.id,
  title: r.title,
  architectureId: r.architecture_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  path: { bucket: r.bucket, objectName: r.object_name },
});

const toArchitecture = (r: ArchitectureRow): ArchitectureRecord => ({
  id: r.id,
  title: r.title,
  description: r.description,
  categoryId: r.category_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  trainImage: r.train_image,
  inferenceImage: r.inference_image,
  deployImage: r.deploy_image,
});

export interface ListFilter {
  ids?: number[];
  limit: number;
  offset: number;
}

export async function listModels(db: Kysely<Database>, teamId: number, filter: ListFilter): Promise<ModelRecord[]> {
  let query = db.selectFrom('models').selectAll().where('team_id', '=', teamId);
  if (filter.ids) query = query.where('id', 'in', filter.ids.length ? filter.ids : [0]);
  const rows = await query.orderBy('id').limit(filter.limit).offset(filter.offset).execute();
  return rows.map(toModel);
}

export async function listArchitectures(db: Kysely<Database>, filter: ListFilter): Promise<ArchitectureRecord[]> {
  let query = db.selectFrom('architectures').selectAll();
  if (filter.ids) query = query.where('id', 'in', filter.ids.length ? filter.ids : [0]);
  const rows = await query.orderBy('id').limit(filter.limit).offset(filter.offset).execute();
  return rows.map(toArchitecture);
}

export async function insertArchitecture(
  db: Kysely<Database>,
  a: { title: string; description: string; categoryId: number; trainImage: string; inferenceImage: string; deployImage: string },
): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('architectures')
    .values({
      title: a.title,
      description: a.description,
      category_id: a.categoryId,
      train_image: a.trainImage,
      inference_image: a.inferenceImage,
      deploy_image: a.deployImage,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function architectureExists(db: Kysely<Database>, id: number): Promise<boolean> {
  return (await db.selectFrom('architectures').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export async function insertModel(
  db: Kysely<Database>,
  m: { teamId: number; architectureId: number; title: string; bucket: string; objectName: string },
): Promise<number> {
  const now = isoNow();
  const row = await db
    .insertInto('models')
    .values({
      team_id: m.teamId,
      architecture_id: m.architectureId,
      title: m.title,
      bucket: m.bucket,
      object_name: m.objectName,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A page of the team's models (or of the architectures) in id order, after `afterId`. */
export interface PageQuery {
  afterId?: number;
  limit: number;
}

export async function listModelPage(db: Kysely<Database>, teamId: number, page: PageQuery): Promise<ModelRecord[]> {
  let query = db.selectFrom('models').selectAll().where('team_id', '=', teamId);
  if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
  return (await query.orderBy('id').limit(page.limit).execute()).map(toModel);
}

export async function countModels(db: Kysely<Database>, teamId: number): Promise<number> {
  const row = await db.selectFrom('models').select((eb) => eb.fn.countAll<number | string>().as('n')).where('team_id', '=', teamId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The team's model, or undefined when it is missing or another team's. `lock`: inside a transaction,
 * holds the row until it ends (PostgreSQL `for update`; SQLite's transactions hold the write lock from
 * their start anyway).
 */
export async function findModel(db: Kysely<Database>, teamId: number, id: number, options: { lock?: boolean } = {}): Promise<ModelRecord | undefined> {
  let query = db.selectFrom('models').selectAll().where('team_id', '=', teamId).where('id', '=', id);
  if (options.lock && isPostgres(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toModel(row);
}

export async function updateModel(db: Kysely<Database>, id: number, change: { title?: string; bucket?: string; objectName?: string }): Promise<void> {
  await db
    .updateTable('models')
    .set({
      ...(change.title === undefined ? {} : { title: change.title }),
      ...(change.bucket === undefined ? {} : { bucket: change.bucket }),
      ...(change.objectName === undefined ? {} : { object_name: change.objectName }),
      updated_at: isoNow(),
    })
    .where('id', '=', id)
    .execute();
}

/** Removes the team's model; answers whether there was one. */
export async function deleteModel(db: Kysely<Database>, teamId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('models').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listArchitecturePage(db: Kysely<Database>, page: PageQuery): Promise<ArchitectureRecord[]> {
  let query = db.selectFrom('architectures').selectAll();
  if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
  return (await query.orderBy('id').limit(page.limit).execute()).map(toArchitecture);
}

export async function countArchitectures(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('architectures').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findArchitecture(db: Kysely<Database>, id: number, options: { lock?: boolean } = {}): Promise<ArchitectureRecord | undefined> {
  let query = db.selectFrom('architectures').selectAll().where('id', '=', id);
  if (options.lock && isPostgres(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toArchitecture(row);
}

/**
 * Removes the architecture if no model of any team uses it, in one statement so a model created
 * meanwhile either is seen or finds the architecture gone (the foreign key refuses it).
 */
export async function deleteUnusedArchitecture(db: Kysely<Database>, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('architectures')
    .where('id', '=', id)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('models').select(sql`1`.as('one')).where('models.architecture_id', '=', id))))
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The team's models with the title of each one's architecture, in id order (the segment tool picks from them). */
export async function teamModelsWithArchitecture(db: Kysely<Database>, teamId: number): Promise<{ id: number; title: string; architecture: string }[]> {
  return db
    .selectFrom('models')
    .innerJoin('architectures', 'architectures.id', 'models.architecture_id')
    .select(['models.id', 'models.title', 'architectures.title as architecture'])
    .where('models.team_id', '=', teamId)
    .orderBy('models.id')
    .execute();
}
