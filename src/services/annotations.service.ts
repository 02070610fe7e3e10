// Annotation pages of a project of the caller's team.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import * as annotations from '../repositories/annotations.repository.ts';

/**
 * The page as UTF-8 JSON bytes. A project the team cannot see filters to nothing, like any filter that
 * matches nothing, so the answer does not tell a foreign project from a missing one. The team check is
 * part of the page query itself, so a page costs one round trip.
 */
export async function annotationPage(
  db: Kysely<Database>,
  teamId: number,
  query: annotations.AnnotationPageQuery,
): Promise<Buffer> {
  return annotations.annotationPageJson(db, teamId, query);
}
