// How many images each dataset holds per block of 4,096 image ids, kept by triggers on `images`, so
// that the image at position p of a dataset's or a project's list by id is found without stepping
// over the p images before it (an OFFSET is O(p): 0.5 s and more at 10 million rows). The blocks
// before p are summed (a few thousand rows at most for 10 million images), and the rest is an
// OFFSET of under 4,096 inside one block, along the (dataset_id, id) or (project_id, id) index.
// The triggers count inserts, deletes and moves to another dataset in the same transaction as the
// change, so the counts are exact; a count of 0 is left in place (a later insert reuses the row).
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

/** Image ids per block; changing it means rebuilding the table. */
export const IMAGE_ID_BLOCK = 4096;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('image_id_blocks')
    .addColumn('dataset_id', 'integer', (c) => c.notNull())
    // floor(image id / IMAGE_ID_BLOCK)
    .addColumn('block', 'integer', (c) => c.notNull())
    .addColumn('images', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('image_id_blocks_pk', ['dataset_id', 'block'])
    .execute();
  const block = sql.lit(IMAGE_ID_BLOCK);
  await sql`insert into image_id_blocks (dataset_id, block, images)
    select dataset_id, id / ${block}, count(*) from images group by dataset_id, id / ${block}`.execute(db);
  if (isPostgres(db)) await postgresTriggers(db);
  else await sqliteTriggers(db);
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const block = sql.lit(IMAGE_ID_BLOCK);
  const add = (row: 'new') => sql`insert into image_id_blocks (dataset_id, block, images) values (${sql.raw(row)}.dataset_id, ${sql.raw(row)}.id / ${block}, 1)
      on conflict (dataset_id, block) do update set images = images + 1;`;
  const remove = (row: 'old') => sql`update image_id_blocks set images = images - 1 where dataset_id = ${sql.raw(row)}.dataset_id and block = ${sql.raw(row)}.id / ${block};`;
  await sql`create trigger image_id_blocks_insert after insert on images begin ${add('new')} end`.execute(db);
  await sql`create trigger image_id_blocks_delete after delete on images begin ${remove('old')} end`.execute(db);
  await sql`create trigger image_id_blocks_move after update of dataset_id on images when old.dataset_id <> new.dataset_id
    begin ${remove('old')} ${add('new')} end`.execute(db);
}

// Statement triggers with transition tables: a bulk insert of 1,000 images is one grouped upsert.
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const block = sql.lit(IMAGE_ID_BLOCK);
  const add = (rows: string) => sql`insert into image_id_blocks (dataset_id, block, images)
      select dataset_id, id / ${block}, count(*) from ${sql.raw(rows)} group by 1, 2
      on conflict (dataset_id, block) do update set images = image_id_blocks.images + excluded.images;`;
  const remove = (rows: string) => sql`update image_id_blocks b set images = b.images - g.n
      from (select dataset_id, id / ${block} as block, count(*) as n from ${sql.raw(rows)} group by 1, 2) g
      where b.dataset_id = g.dataset_id and b.block = g.block;`;
  await sql`create function image_id_blocks_insert() returns trigger language plpgsql as $$ begin ${add('added')} return null; end $$`.execute(db);
  await sql`create function image_id_blocks_delete() returns trigger language plpgsql as $$ begin ${remove('removed')} return null; end $$`.execute(db);
  await sql`create function image_id_blocks_move() returns trigger language plpgsql as $$ begin
      if exists (select from before_rows o join after_rows n on n.id = o.id where n.dataset_id <> o.dataset_id) then
        ${remove('(select o.* from before_rows o join after_rows n on n.id = o.id where n.dataset_id <> o.dataset_id) moved_from')}
        ${add('(select n.* from before_rows o join after_rows n on n.id = o.id where n.dataset_id <> o.dataset_id) moved_to')}
      end if;
      return null; end $$`.execute(db);
  await sql`create function image_id_blocks_truncate() returns trigger language plpgsql as $$ begin delete from image_id_blocks; return null; end $$`.execute(db);
  await sql`create trigger image_id_blocks_insert after insert on images referencing new table as added for each statement execute function image_id_blocks_insert()`.execute(db);
  await sql`create trigger image_id_blocks_delete after delete on images referencing old table as removed for each statement execute function image_id_blocks_delete()`.execute(db);
  await sql`create trigger image_id_blocks_move after update on images referencing old table as before_rows new table as after_rows
    for each statement execute function image_id_blocks_move()`.execute(db);
  await sql`create trigger image_id_blocks_truncate after truncate on images for each statement execute function image_id_blocks_truncate()`.execute(db);
  await notifyChangesOf(db, 'image_id_blocks');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    for (const name of ['insert', 'delete', 'move', 'truncate']) await sql`drop function ${sql.id(`image_id_blocks_${name}`)}() cascade`.execute(db);
  } else {
    for (const name of ['insert', 'delete', 'move']) await sql`drop trigger ${sql.id(`image_id_blocks_${name}`)}`.execute(db);
  }
  await db.schema.dropTable('image_id_blocks').execute();
}
