// POST /tasks/import/check-images: which of these hashes does the team not have yet?
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { validation } from '../errors.ts';
import * as staging from '../repositories/staging.repository.ts';
import { isValidHash } from './identifiers.ts';

/**
 * The hashes the team cannot see yet, in input order, without repeats. `fieldOf` names a bad hash's
 * place in the request body, as the API version has it there.
 */
export async function missingHashes(db: Kysely<Database>, teamId: number, hashes: string[], fieldOf = (index: number) => `[${index}]`): Promise<string[]> {
  const bad = hashes.findIndex((h) => !isValidHash(h));
  if (bad >= 0) throw validation(`hash at index ${bad} is not the base64 of a SHA-256 digest`, { field: fieldOf(bad) });
  const unique = [...new Set(hashes)];
  const unknown = await staging.unknownHashes(db, teamId, unique, new Date().toISOString());
  return unique.filter((h) => unknown.has(h));
}
