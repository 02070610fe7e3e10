// Staged uploads (POST /tasks/import/files) and what a team can see of stored content.
import { type Kysely, sql } from 'kysely';
import { textListTable } from '../db/dialect.ts';
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

/** Chunks that stay under every driver's limit on bound parameters. */
const CHUNK = 2000;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Of `hashes`, those the team can see: an image of one of its projects, or an unexpired staged upload. */
export async function visibleHashes(db: Kysely<Database>, teamId: number, hashes: string[], now: string): Promise<Set<string>> {
  const seen = new Set<string>();
  if (hashes.length === 0) return seen;
  // One index probe per hash and place, each answered from a covering index (migration 0004). A join
  // or IN list instead sorts the list first and, on SQLite without statistics, may walk every image
  // of the team's projects.
  const { rows } = await sql<{ hash: string }>`
    select h.value as hash from ${textListTable(db as unknown as Kysely<unknown>, hashes, 'h')}
    where exists (
      select 1 from images i join projects p on p.id = i.project_id
      where i.hash = h.value and p.team_id = ${teamId}
    ) or exists (
      select 1 from staged_files s
      where s.hash = h.value and s.team_id = ${teamId} and s.kind = 'image' and s.expires_at > ${now}
    )`.execute(db);
  for (const row of rows) seen.add(row.hash);
  return seen;
}

/** The team's unexpired staged files among `ids`. */
export async function findStagedFiles(db: Kysely<Database>, teamId: number, ids: string[], now: string) {
  const found = [];
  for (const part of chunks(ids)) {
    found.push(
      ...(await db
        .selectFrom('staged_files')
        .select(['id', 'kind', 'format', 'name', 'hash', 'size'])
        .where('team_id', '=', teamId)
        .where('expires_at', '>', now)
        .where('id', 'in', part)
        .execute()),
    );
  }
  return found;
}

/** Blob facts (size, dimensions) of `hashes`. */
export async function blobsByHash(db: Kysely<Database>, hashes: string[]) {
  const byHash = new Map<string, { size: number; width: number | null; height: number | null; mediaType: string }>();
  for (const part of chunks(hashes)) {
    const rows = await db.selectFrom('blobs').select(['hash', 'size', 'width', 'height', 'media_type']).where('hash', 'in', part).execute();
    for (const r of rows) byHash.set(r.hash, { size: Number(r.size), width: r.width, height: r.height, mediaType: r.media_type });
  }
  return byHash;
}
