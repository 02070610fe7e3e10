// Models (per team) and architectures (one catalogue for everybody).
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
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
