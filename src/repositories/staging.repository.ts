// Staged uploads (POST /tasks/import/files) and what a team can see of stored content.
import { type Kysely, sql } from 'kysely';
import { jsonRows, jsonRowsOf, listPosition, textListTable } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';

export interface StagedFileInput {
  id: string;
  teamId: number;
  kind: string;
  format: string;
  name: string;
  hash: string;
  size: number;
  createdAt: string;
  expiresAt: string;
}

export async function insertStagedFiles(db: Kysely<Database>, files: StagedFileInput[]): Promise<void> {
  if (files.length === 0) return;
  await db
    .insertInto('staged_files')
    .values(
      files.map((f) => ({
        id: f.id,
        team_id: f.teamId,
        kind: f.kind,
        format: f.format,
        name: f.name,
        hash: f.hash,
        size: f.size,
        created_at: f.createdAt,
        expires_at: f.expiresAt,
      })),
    )
    .execute();
}

/**
 * Of `hashes`, those the team cannot see: neither an image of one of its projects nor an unexpired
 * staged upload. Asked for the few it lacks, not the many it has: an import of a hundred thousand
 * known images gets no row back.
 */
export async function unknownHashes(db: Kysely<Database>, teamId: number, hashes: readonly string[], now: string): Promise<Set<string>> {
  const unknown = new Set<string>();
  if (hashes.length === 0) return unknown;
  // One index probe per hash and place, each answered from a covering index (migration 0004). A join
  // or IN list instead sorts the list first and, on SQLite without statistics, may walk every image
  // of the team's projects.
  const { rows } = await sql<{ hash: string }>`
    select h.value as hash from ${textListTable(db, hashes, 'h')}
    where not exists (
      select 1 from images i join projects p on p.id = i.project_id
      where i.hash = h.value and p.team_id = ${teamId}
    ) and not exists (
      select 1 from staged_files s
      where s.hash = h.value and s.team_id = ${teamId} and s.kind = 'image' and s.expires_at > ${now}
    )`.execute(db);
  for (const row of rows) unknown.add(row.hash);
  return unknown;
}

export interface StagedFile {
  kind: string;
  format: string;
  hash: string;
  size: number;
}

/** Ids looked up by one statement of findStagedFiles. */
const IDS_PER_STATEMENT = 10_000;

/** The team's unexpired staged files among `ids`, by id. */
export async function findStagedFiles(db: Kysely<Database>, teamId: number, ids: readonly string[], now: string): Promise<Map<string, StagedFile>> {
  const found = new Map<string, StagedFile>();
  if (ids.length === 0) return found;
  const shared = new Map<string, string>();
  const share = (text: string) => shared.get(text) ?? (shared.set(text, text), text);
  // A part of the list as one parameter, joined by primary key, and the rows back as one JSON text: a
  // hundred thousand ids cost a few statements, each text a megabyte or two. A row names its id by its
  // place in the list, and the few kinds and formats are shared: for a hundred thousand files, three
  // hundred thousand strings fewer.
  for (let start = 0; start < ids.length; start += IDS_PER_STATEMENT) {
    const part = ids.slice(start, start + IDS_PER_STATEMENT);
    const { rows } = await sql<{ found: string | null }>`
      select ${jsonRowsOf(db, [listPosition(db, 'l'), sql.ref('s.kind'), sql.ref('s.format'), sql.ref('s.hash'), sql.ref('s.size')])} as found
      from ${textListTable(db, part, 'l')} join staged_files s on s.id = l.value
      where s.team_id = ${teamId} and s.expires_at > ${now}`.execute(db);
    for (const [position, kind, format, hash, size] of jsonRows<[number, string, string, string, number]>(rows[0]?.found)) {
      found.set(part[position]!, { kind: share(kind), format: share(format), hash, size });
    }
  }
  return found;
}

export interface BlobFacts {
  size: number;
  width: number | null;
  height: number | null;
  mediaType: string;
}

/** What an import reads of an image blob. */
export type ImageFacts = Pick<BlobFacts, 'size' | 'width' | 'height'>;

/** Blob facts (size, dimensions) of `hashes`. */
export async function blobsByHash(db: Kysely<Database>, hashes: string[]): Promise<Map<string, BlobFacts>> {
  const byHash = new Map<string, BlobFacts>();
  if (hashes.length === 0) return byHash;
  const { rows } = await sql<{ found: string | null }>`
    select ${jsonRowsOf(db, [listPosition(db, 'l'), sql.ref('b.size'), sql.ref('b.width'), sql.ref('b.height'), sql.ref('b.media_type')])} as found
    from ${textListTable(db, hashes, 'l')} join blobs b on b.hash = l.value`.execute(db);
  for (const [position, size, width, height, mediaType] of jsonRows<[number, number, number | null, number | null, string]>(rows[0]?.found)) {
    byHash.set(hashes[position]!, { size, width, height, mediaType });
  }
  return byHash;
}

/** The total size of the blobs of `hashes`, each counted as often as it is listed. */
export async function totalBlobSize(db: Kysely<Database>, hashes: string[]): Promise<number> {
  if (hashes.length === 0) return 0;
  const { rows } = await sql<{ total: number | string | null }>`
    select sum(b.size) as total
    from ${textListTable(db, hashes, 'l')} join blobs b on b.hash = l.value`.execute(db);
  return Number(rows[0]?.total ?? 0);
}
