// On PostgreSQL, a version's image rows go with it by a statement trigger on `versions` instead of a
// foreign key. A foreign key checks each inserted row on its own (a lookup of the version, locking
// it, 100,000 times for a version of 100,000 images): 0.2-0.3 s of the 1.4-1.5 s of the database's
// CPU that such a version took (bench/README.md). The rows are written only by the statement that makes the
// version, in its transaction, after the version itself (versions.repository.ts); what the key still
// did, taking the rows away with their version (deleted alone, or with its project), the trigger
// does for all of a statement's versions at once. SQLite checks a key by one lookup in the same
// process, and keeps its key.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table version_images drop constraint version_images_version_id_fkey`.execute(db);
  await sql`create function annostore_version_images_cascade() returns trigger language plpgsql as $$ begin
      delete from version_images where version_id in (select id from gone);
      return null;
    end $$`.execute(db);
  await sql`create trigger version_images_cascade after delete on versions referencing old table as gone
    for each statement execute function annostore_version_images_cascade()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function annostore_version_images_cascade() cascade`.execute(db);
  // Rows of no version cannot be made by the code, but would keep the key from coming back.
  await sql`delete from version_images where not exists (select 1 from versions where versions.id = version_images.version_id)`.execute(db);
  await sql`alter table version_images add constraint version_images_version_id_fkey
    foreign key (version_id) references versions (id) on delete cascade`.execute(db);
}
