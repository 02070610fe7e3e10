// What checking a DTL graph reads: the team's projects by title and their datasets.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

/** The team's projects of this exact title, in id order (titles may repeat). */
export async function projectsTitled(db: Kysely<Database>, teamId: number, title: string): Promise<{ id: number; title: string }[]> {
  return db.selectFrom('projects').select(['id', 'title']).where('team_id', '=', teamId).where('title', '=', title).orderBy('id').execute();
}

/** The team's project of this id, or undefined (another team's project is as absent as a missing one). */
export async function teamProject(db: Kysely<Database>, teamId: number, id: number): Promise<{ id: number; title: string } | undefined> {
  return db.selectFrom('projects').select(['id', 'title']).where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}
