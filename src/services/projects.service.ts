// Project rules: listing and deleting within the caller's team.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { notFound } from '../errors.ts';
import * as projects from '../repositories/projects.repository.ts';

export const listProjects = (db: Kysely<Database>, teamId: number, projectId?: number) =>
  projects.listProjects(db, teamId, projectId);

/** Removes the project and everything in it in one statement; its blobs are reclaimed by the sweep. */
export async function deleteProject(db: Kysely<Database>, teamId: number, projectId: number): Promise<void> {
  if (!(await projects.deleteProject(db, teamId, projectId))) throw notFound('project', { projectId });
}

/** The project, or a 404 that reads the same whether it is missing or another team's. */
export async function requireProject(db: Kysely<Database>, teamId: number, projectId: number) {
  const project = await projects.findProject(db, teamId, projectId);
  if (!project) throw notFound('project', { projectId });
  return project;
}
