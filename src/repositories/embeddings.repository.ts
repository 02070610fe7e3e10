// Image embeddings of the segment tool: one row per (image hash, model), its bytes in the blob store.
import type { Kysely } from 'kysely';
import { isoNow } from '../clock.ts';
import type { Database } from '../db/types.ts';

export interface EmbeddingRecord {
  /** Where its bytes lie in the blob store: the SHA-256 (base64) of the fp16 bytes. */
  key: string;
  bytes: number;
}

export async function findEmbedding(db: Kysely<Database>, hash: string, model: string): Promise<EmbeddingRecord | undefined> {
  const row = await db.selectFrom('embeddings').select(['key', 'bytes']).where('hash', '=', hash).where('model', '=', model).executeTakeFirst();
  return row && { key: row.key, bytes: Number(row.bytes) };
}

/** Records an embedding whose bytes are stored, unless another process recorded one first; answers the one that stands. */
export async function recordEmbedding(db: Kysely<Database>, hash: string, model: string, embedding: EmbeddingRecord): Promise<EmbeddingRecord> {
  await db
    .insertInto('embeddings')
    .values({ hash, model, key: embedding.key, bytes: embedding.bytes, created_at: isoNow() })
    .onConflict((oc) => oc.columns(['hash', 'model']).doNothing())
    .execute();
  return (await findEmbedding(db, hash, model))!;
}

/** Of `hashes`, those with no embedding by `model` yet. */
export async function lackingEmbedding(db: Kysely<Database>, hashes: readonly string[], model: string): Promise<string[]> {
  if (hashes.length === 0) return [];
  const rows = await db
    .selectFrom('blobs')
    .leftJoin('embeddings', (join) => join.onRef('embeddings.hash', '=', 'blobs.hash').on('embeddings.model', '=', model))
    .select('blobs.hash')
    .where('blobs.hash', 'in', [...hashes])
    .where('embeddings.key', 'is', null)
    .execute();
  return rows.map((r) => r.hash);
}
