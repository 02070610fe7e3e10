// Many image rows at once, for the tests and benchmarks of a gallery at hundreds of thousands to
// millions of images: one INSERT … SELECT over a generated series (no rows cross from Node), every
// image sharing one stored picture, named `<prefix>0000000.png` on in insertion (and id) order, with
// `objects` (stored objects text) on every `objectsEvery`-th one. The datasets' byte sizes are left
// alone (no test reads them here).
import { sql } from 'kysely';
import type { Context } from '../../src/context.ts';
import { isPostgres } from '../../src/db/dialect.ts';
import { newImage } from './factories.ts';

export interface BulkImages {
  datasetId: number;
  count: number;
  bytes: Buffer;
  width: number;
  height: number;
  prefix?: string;
  objectsJson?: string;
  objectsEvery?: number;
}

/** Answers the id of the first image (the rest follow it in name order). */
export async function bulkImages(ctx: Context, options: BulkImages): Promise<number> {
  const db = ctx.db.kysely;
  const prefix = options.prefix ?? 'img-';
  const first = await newImage(ctx, options.datasetId, { name: `${prefix}${'0'.repeat(7)}.png`, bytes: options.bytes, width: options.width, height: options.height });
  const template = await db.selectFrom('images').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
  const objects = options.objectsJson ?? '[]';
  const every = options.objectsEvery ?? 0;
  const postgres = isPostgres(db);
  // In slices, so that neither database holds one transaction of ten million rows.
  const SLICE = 500_000;
  for (let from = 1; from < options.count; from += SLICE) {
    const to = Math.min(options.count - 1, from + SLICE - 1);
    const name = postgres ? sql`${prefix} || lpad(i::text, 7, '0') || '.png'` : sql`${prefix} || printf('%07d', i) || '.png'`;
    const withObjects = every > 0 ? sql`case when i % ${every} = 0 then ${objects} else '[]' end` : sql`'[]'`;
    const series = postgres ? sql`generate_series(${from}::int, ${to}::int) as s(i)` : sql`(with recursive n(i) as (select ${from} union all select i + 1 from n where i < ${to}) select i from n)`;
    await sql`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, created_at, updated_at)
      select ${template.dataset_id}, ${template.project_id}, ${name}, ${template.hash}, ${template.size}, ${template.width}, ${template.height}, '', ${withObjects}, ${template.created_at}, ${template.updated_at}
      from ${series}`.execute(db);
  }
  return first.id;
}
