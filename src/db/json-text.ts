// Questions asked of JSON kept as text (images.objects_json), written once for each dialect.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from './dialect.ts';

/** The number of members of the JSON array in the text column `column`. */
export function jsonArrayLength<DB>(db: Kysely<DB>, column: string): RawBuilder<number> {
  return isPostgres(db) ? sql<number>`json_array_length(${sql.ref(column)}::json)` : sql<number>`json_array_length(${sql.ref(column)})`;
}

/**
 * Whether the text column holds `needle` anywhere, compared byte for byte: unlike LIKE, no character
 * of the needle is a wildcard, and case counts on both dialects.
 */
export function containsText<DB>(db: Kysely<DB>, column: string, needle: string): RawBuilder<boolean> {
  return isPostgres(db) ? sql<boolean>`strpos(${sql.ref(column)}, ${needle}) > 0` : sql<boolean>`instr(${sql.ref(column)}, ${needle}) > 0`;
}

/**
 * Whether the text column starts with `prefix`, compared character for character on both dialects
 * (SQLite's LIKE ignores ASCII case, PostgreSQL's does not). Both count characters as code points.
 */
export function startsWithText(column: string, prefix: string): RawBuilder<boolean> {
  return sql<boolean>`substr(${sql.ref(column)}, 1, ${[...prefix].length}) = ${prefix}`;
}
