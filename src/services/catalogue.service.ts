// Registering models and architectures (command line; v1 only lists them).
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { notFound, validation } from '../errors.ts';
import * as catalogue from '../repositories/catalogue.repository.ts';
import * as teams from '../repositories/teams.repository.ts';

export async function addArchitecture(
  db: Kysely<Database>,
  a: { title: string; description?: string; categoryId?: number; trainImage?: string; inferenceImage?: string; deployImage?: string },
): Promise<number> {
  if (!a.title.trim()) throw validation('an architecture needs a title');
  return catalogue.insertArchitecture(db, {
    title: a.title,
    description: a.description ?? '',
    categoryId: a.categoryId ?? 0,
    trainImage: a.trainImage ?? '',
    inferenceImage: a.inferenceImage ?? '',
    deployImage: a.deployImage ?? '',
  });
}

export async function addModel(
  db: Kysely<Database>,
  m: { team: string; title: string; architectureId: number; bucket: string; objectName: string },
): Promise<number> {
  if (!m.title.trim()) throw validation('a model needs a title');
  if (!(await catalogue.architectureExists(db, m.architectureId))) throw notFound('architecture', { id: m.architectureId });
  const teamId = await teams.ensureTeam(db, m.team);
  return catalogue.insertModel(db, { teamId, architectureId: m.architectureId, title: m.title, bucket: m.bucket, objectName: m.objectName });
}
