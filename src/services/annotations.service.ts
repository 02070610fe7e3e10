// Annotation pages of a project of the caller's team.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import * as annotations from '../repositories/annotations.repository.ts';
import * as projects from '../repositories/projects.repository.ts';

/**
 * The page as JSON text. A project the team cannot see filters to nothing, like any filter that
 * matches nothing, so the answer does not tell a foreign project from a missing one.
 */
export async function annotationPage(
  db: Kysely<Database>,
  teamId: number,
  query: annotations.AnnotationPageQuery,
): Promise<string> {
  if (!(await projects.findProject(db, teamId, query.projectId))) return '[]';
  return annotations.annotationPageJson(db, query);
}
