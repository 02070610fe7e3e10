// Migrations that move data: what a database held before one must read the same after it, and after
// it is undone. On both dialects.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Config } from '../../src/config.ts';
import { type Db, createDb } from '../../src/db/create-db.ts';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.ts';
import { annotationContents } from '../../src/repositories/annotation-contents.repository.ts';
import { listImageMetadata } from '../../src/repositories/image-metadata.repository.ts';
import { pageOfVersionImages } from '../../src/repositories/versions.repository.ts';
import { type ImportItem, loadPlan } from '../../src/repositories/import.repository.ts';
import { dialects } from '../helpers/dialects.ts';

for (const dialect of dialects) {
  describe(`migrations on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let db: Db;

    beforeEach(async () => {
      config = dialect.emptyConfig();
      db = await createDb(config);
    });

    afterEach(async () => {
      await db.close();
      await dialect.cleanup(config);
    });

    let teams = 0;

    /** A task of `type` as the schema before 0007 stored it: its input, items and all, in one row. */
    async function taskWithInput(type: string, input: object): Promise<number> {
      const now = new Date().toISOString();
      teams += 1;
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values (${`team-${teams}`}, ${now}) returning id`.execute(db.kysely);
      const { rows } = await sql<{ id: number }>`
        insert into tasks (team_id, type, status, size, meta, created_at, stop_requested, attempts)
        values (${team[0]!.id}, ${type}, 'queued', 0, '{}', ${now}, 0, 0) returning id`.execute(db.kysely);
      const taskId = rows[0]!.id;
      await sql`insert into task_inputs (task_id, input) values (${taskId}, ${JSON.stringify(input)})`.execute(db.kysely);
      return taskId;
    }

    const inputOf = async (taskId: number) =>
      JSON.parse((await sql<{ input: string }>`select input from task_inputs where task_id = ${taskId}`.execute(db.kysely)).rows[0]!.input) as Record<string, unknown>;

    test('0007 moves the items of queued imports into their plan, in order, and back when undone', async () => {
      await migrateTo(db, '0006_change_notifications');
      // More items than one part holds, so the order across parts is checked too.
      const items: ImportItem[] = Array.from({ length: 12_345 }, (_, i) => ({ d: 1 + (i % 3), n: `img_${i}.png`, h: `hash${i}`, a: i % 2 ? `ann${i}` : null, p: `ds/img/img_${i}.png` }));
      const header = { projectId: 7, onConflict: 'rename', format: 'supervisely', unsupportedClasses: ['mask'] };
      const importTask = await taskWithInput('import', { ...header, items });
      const emptyImport = await taskWithInput('import', { ...header, items: [] });
      const otherTask = await taskWithInput('export', { items: ['kept as it is'] });

      assert.deepEqual(await migrateTo(db, '0007_import_plans'), ['0007_import_plans']);
      assert.deepEqual(await loadPlan(db.kysely, importTask), items);
      assert.deepEqual(await inputOf(importTask), header);
      assert.deepEqual(await loadPlan(db.kysely, emptyImport), []);
      assert.deepEqual(await inputOf(otherTask), { items: ['kept as it is'] });

      await migrateTo(db, '0006_change_notifications');
      assert.deepEqual(await inputOf(importTask), { ...header, items });
      assert.deepEqual(await inputOf(emptyImport), { ...header, items: [] });
      assert.deepEqual(await inputOf(otherTask), { items: ['kept as it is'] });
    });

    test('0008 gives keys their scope: read-only keys read, the start-up admin key is admin, the others write', async () => {
      await migrateTo(db, '0007_import_plans');
      const now = new Date().toISOString();
      const insert = async (team: string, login: string, readOnly: number) => {
        await sql`insert into teams (name, created_at) values (${team}, ${now}) on conflict do nothing`.execute(db.kysely);
        const { rows } = await sql<{ id: number }>`
          insert into users (team_id, login, created_at) select id, ${login}, ${now} from teams where name = ${team} returning id`.execute(db.kysely);
        await sql`insert into api_keys (user_id, prefix, digest, read_only, created_at)
          values (${rows[0]!.id}, ${login}, ${`digest-${team}-${login}`}, ${readOnly}, ${now})`.execute(db.kysely);
      };
      await insert('default', 'admin', 0);
      await insert('default', 'reader', 1);
      await insert('vision', 'vera', 0);
      await insert('vision', 'admin', 0);
      await migrateTo(db, '0008_key_scopes_idempotency');
      const { rows } = await sql<{ prefix: string; scope: string }>`select prefix, scope from api_keys order by id`.execute(db.kysely);
      assert.deepEqual(
        rows.map((r) => [r.prefix, r.scope]),
        [['admin', 'admin'], ['reader', 'read'], ['vera', 'write'], ['admin', 'write']],
      );
    });

    test('0009 gives projects written before an empty description and their tags no value type, and undoes cleanly', async () => {
      await migrateTo(db, '0008_key_scopes_idempotency');
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('before-0009', ${now}) returning id`.execute(db.kysely);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'old', 0, ${now}, ${now}) returning id`.execute(db.kysely);
      await sql`insert into project_tags (project_id, scope, title, hotkey, created_at, updated_at)
        values (${project[0]!.id}, 'images', 'old tag', '', ${now}, ${now})`.execute(db.kysely);

      assert.deepEqual(await migrateTo(db, '0009_catalog_details'), ['0009_catalog_details']);
      const projectRow = await db.kysely.selectFrom('projects').select(['title', 'description']).executeTakeFirstOrThrow();
      assert.deepEqual(projectRow, { title: 'old', description: '' });
      const tagRow = await db.kysely.selectFrom('project_tags').select(['title', 'value_type']).executeTakeFirstOrThrow();
      assert.deepEqual(tagRow, { title: 'old tag', value_type: 'none' });

      await migrateTo(db, '0008_key_scopes_idempotency');
      const { rows } = await sql<{ title: string; hotkey: string }>`select p.title, t.hotkey from projects p join project_tags t on t.project_id = p.id`.execute(db.kysely);
      assert.deepEqual(rows, [{ title: 'old', hotkey: '' }], 'undone, the rows read as before');
    });

    test('0012 gives blobs a thumbhash and a thumbnails table, and takes them away when undone', async () => {
      await migrateTo(db, '0011_image_list_indexes');
      const now = new Date().toISOString();
      await sql`insert into blobs (hash, size, media_type, width, height, created_at) values ('h', 3, 'image/png', 1, 1, ${now})`.execute(db.kysely);
      assert.ok((await migrateToLatest(db)).includes('0012_thumbnails'));
      const blob = await db.kysely.selectFrom('blobs').select(['hash', 'thumbhash']).executeTakeFirstOrThrow();
      assert.deepEqual(blob, { hash: 'h', thumbhash: null });
      await db.kysely.insertInto('thumbnails').values({ hash: 'h', size: 256, key: 'k', bytes: 10, width: 1, height: 1, created_at: now }).execute();
      await assert.rejects(db.kysely.insertInto('thumbnails').values({ hash: 'missing', size: 256, key: 'k', bytes: 10, width: 1, height: 1, created_at: now }).execute());

      await migrateTo(db, '0011_image_list_indexes');
      const { rows } = await sql<Record<string, unknown>>`select * from blobs`.execute(db.kysely);
      assert.deepEqual(Object.keys(rows[0]!).sort(), ['created_at', 'hash', 'height', 'media_type', 'size', 'width']);
      await assert.rejects(sql`select * from thumbnails`.execute(db.kysely));
    });

    test('0010 gives the images already there no stored object ids (1..n), their objects untouched', async () => {
      await migrateTo(db, '0009_catalog_details');
      const now = new Date().toISOString();
      const objects = '[{"classTitle":"car","description":"","tags":[],"bitmap":null,"points":{"exterior":[[1,2]],"interior":[]}}]';
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('t', ${now}) returning id`.execute(db.kysely);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'p', 0, ${now}, ${now}) returning id`.execute(db.kysely);
      const { rows: dataset } = await sql<{ id: number }>`
        insert into datasets (project_id, title, size, created_at, updated_at) values (${project[0]!.id}, 'd', 0, ${now}, ${now}) returning id`.execute(db.kysely);
      await sql`insert into blobs (hash, size, media_type, created_at) values ('h', 1, 'image/png', ${now})`.execute(db.kysely);
      await sql`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, created_at, updated_at)
        values (${dataset[0]!.id}, ${project[0]!.id}, 'a.png', 'h', 1, 4, 4, '', ${objects}, ${now}, ${now})`.execute(db.kysely);

      assert.deepEqual(await migrateTo(db, '0010_object_ids'), ['0010_object_ids']);
      const after = await sql<{ objects_json: string; object_ids: string | null; next_object_id: number | null }>`
        select objects_json, object_ids, next_object_id from images`.execute(db.kysely);
      assert.deepEqual(after.rows, [{ objects_json: objects, object_ids: null, next_object_id: null }]);

      await migrateTo(db, '0009_catalog_details');
      const undone = await sql<Record<string, unknown>>`select * from images`.execute(db.kysely);
      assert.equal(undone.rows[0]!.objects_json, objects);
      assert.equal('object_ids' in undone.rows[0]!, false);
    });

    test('0019 makes the names already there searchable, and later ones too; undone, the plain list stays', async () => {
      await migrateTo(db, '0018_tag_values');
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('t', ${now}) returning id`.execute(db.kysely);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'p', 0, ${now}, ${now}) returning id`.execute(db.kysely);
      const { rows: dataset } = await sql<{ id: number }>`
        insert into datasets (project_id, title, size, created_at, updated_at) values (${project[0]!.id}, 'd', 0, ${now}, ${now}) returning id`.execute(db.kysely);
      await sql`insert into blobs (hash, size, media_type, created_at) values ('h', 1, 'image/png', ${now})`.execute(db.kysely);
      const insertImage = (name: string) =>
        sql`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, created_at, updated_at)
          values (${dataset[0]!.id}, ${project[0]!.id}, ${name}, 'h', 1, 4, 4, '', '[]', ${now}, ${now})`.execute(db.kysely);
      await insertImage('old-CAFÉ-mp4-1.png');
      await insertImage('old-other.png');

      assert.deepEqual(await migrateTo(db, '0019_name_search'), ['0019_name_search']);
      await insertImage('new-café.png');
      // The list is read by today's code, which needs every later column.
      await migrateToLatest(db);
      const found = async (text: string) =>
        (await listImageMetadata(db.kysely, { datasetId: dataset[0]!.id, nameContains: text }, 'name', undefined, 10)).map((i) => i.name);
      assert.deepEqual(await found('café-MP4'), ['old-CAFÉ-mp4-1.png']);
      assert.deepEqual(await found('café'), ['new-café.png', 'old-CAFÉ-mp4-1.png']);
      if (dialect.name === 'postgres') {
        const { rows } = await sql<{ indexname: string }>`select indexname from pg_indexes where schemaname = current_schema() and tablename = 'images' and indexname = 'images_name_trgm_idx'`.execute(db.kysely);
        assert.equal(rows.length, 1, 'the trigram index, pg_trgm being available here');
      }

      await migrateTo(db, '0017_object_tag_values');
      await insertImage('after-undo.png');
      const { rows } = await sql<{ name: string }>`select name from images order by id`.execute(db.kysely);
      assert.equal(rows.length, 4);
    });

    test('0033 leaves every existing project to the team as managers, and undone, the column goes', async () => {
      await migrateTo(db, '0032_user_identities');
      const k = db.kysely;
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('roles', ${now}) returning id`.execute(k);
      await sql`insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'before roles', 0, ${now}, ${now})`.execute(k);
      assert.deepEqual(await migrateTo(db, '0033_project_members'), ['0033_project_members']);
      const { rows } = await sql<{ role: string | null }>`select member_default_role as role from projects where title = 'before roles'`.execute(k);
      assert.deepEqual(rows, [{ role: 'manager' }]);
      await migrateTo(db, '0032_user_identities');
      const { rows: after } = await sql<Record<string, unknown>>`select * from projects where title = 'before roles'`.execute(k);
      assert.ok(!('member_default_role' in after[0]!));
    });

    test("0036 names each image's annotation and each version's copy by the hash of its snapshot, reads the same, and gives the copies back when undone", async () => {
      await migrateTo(db, '0034_jobs');
      const k = db.kysely;
      const now = new Date().toISOString();
      const objects = '[{"classTitle":"car","description":"","tags":[],"bitmap":null,"points":{"exterior":[[1,2]],"interior":[]}}]';
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('t', ${now}) returning id`.execute(k);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'p', 0, ${now}, ${now}) returning id`.execute(k);
      const projectId = project[0]!.id;
      const { rows: dataset } = await sql<{ id: number }>`
        insert into datasets (project_id, title, size, created_at, updated_at) values (${projectId}, 'd', 0, ${now}, ${now}) returning id`.execute(k);
      await sql`insert into blobs (hash, size, media_type, created_at) values ('h', 1, 'image/png', ${now})`.execute(k);
      const { rows: images } = await sql<{ id: number }>`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, object_ids, object_tag_values, created_at, updated_at)
        values (${dataset[0]!.id}, ${projectId}, 'a.png', 'h', 1, 4, 4, 'one', ${objects}, '[7]', '{"7":{"kind":"x"}}', ${now}, ${now}),
               (${dataset[0]!.id}, ${projectId}, 'b.png', 'h', 1, 4, 4, '', '[]', null, null, ${now}, ${now}) returning id`.execute(k);
      const { rows: version } = await sql<{ id: number }>`insert into versions (project_id, name, description, split, image_count, object_count, created_at)
        values (${projectId}, 'v', '', '{"method":"none"}', 2, 1, ${now}) returning id`.execute(k);
      const copies = [
        { image_id: images[0]!.id, description: 'then', objects_json: objects, object_ids: '[3]', object_tag_values: null },
        { image_id: images[1]!.id, description: '', objects_json: '[]', object_ids: null, object_tag_values: null },
      ];
      for (const c of copies) {
        await sql`insert into version_images (version_id, image_id, dataset_id, dataset_title, name, hash, width, height, description, objects_json, object_ids, object_tag_values, subset)
          values (${version[0]!.id}, ${c.image_id}, ${dataset[0]!.id}, 'd', 'x.png', 'h', 4, 4, ${c.description}, ${c.objects_json}, ${c.object_ids}, ${c.object_tag_values}, '')`.execute(k);
      }

      assert.deepEqual(await migrateTo(db, '0036_annotation_hashes'), ['0036_annotation_hashes']);
      const hashed = await k.selectFrom('images').select(['id', 'annotation_hash']).orderBy('id').execute();
      const current = await annotationContents(k, hashed.map((r) => r.annotation_hash!));
      assert.deepEqual(current.get(hashed[0]!.annotation_hash!), { description: 'one', objectsJson: objects, objectIds: '[7]', objectTagValues: '{"7":{"kind":"x"}}' });
      assert.deepEqual(current.get(hashed[1]!.annotation_hash!), { description: '', objectsJson: '[]', objectIds: null, objectTagValues: null });
      const read = await pageOfVersionImages(k, version[0]!.id, undefined, undefined, 10);
      assert.deepEqual(
        read.map((r) => ({ image_id: r.image_id, description: r.description, objects_json: r.objects_json, object_ids: r.object_ids, object_tag_values: r.object_tag_values })),
        copies,
      );
      // The empty annotation is one snapshot, named by the image and the version alike.
      assert.equal(read[1]!.annotation_hash, hashed[1]!.annotation_hash);

      await migrateTo(db, '0031_annotation_revisions');
      const undone = await sql<Record<string, unknown>>`select image_id, description, objects_json, object_ids, object_tag_values from version_images order by image_id`.execute(k);
      assert.deepEqual(undone.rows, copies);
      const imageColumns = await sql<Record<string, unknown>>`select * from images`.execute(k);
      assert.equal('annotation_hash' in imageColumns.rows[0]!, false);
    });

    test('0039 leaves the datasets already there visible, adds the quality tables, and undone takes hidden datasets and their images with it', async () => {
      await migrateTo(db, '0038_prediction_agreement');
      const k = db.kysely;
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('q', ${now}) returning id`.execute(k);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'p', 0, ${now}, ${now}) returning id`.execute(k);
      const projectId = project[0]!.id;
      await sql`insert into datasets (project_id, title, size, created_at, updated_at) values (${projectId}, 'before', 0, ${now}, ${now})`.execute(k);
      assert.deepEqual(await migrateTo(db, '0039_job_quality'), ['0039_job_quality']);
      const { rows } = await sql<{ title: string; hidden: number }>`select title, hidden from datasets order by id`.execute(k);
      assert.deepEqual(rows.map((r) => [r.title, Number(r.hidden)]), [['before', 0]]);
      await sql`insert into datasets (project_id, title, size, hidden, created_at, updated_at) values (${projectId}, 'honeypots', 0, 1, ${now}, ${now})`.execute(k);
      assert.deepEqual(await k.selectFrom('ground_truth').selectAll().execute(), []);
      assert.deepEqual(await k.selectFrom('honeypots').selectAll().execute(), []);
      await migrateTo(db, '0038_prediction_agreement');
      const { rows: after } = await sql<Record<string, unknown>>`select * from datasets order by id`.execute(k);
      assert.deepEqual(after.map((r) => r.title), ['before']);
      assert.equal('hidden' in after[0]!, false);
    });

    test('0040 still takes a version\'s image rows away with it, with or without it, and undone the key is back', async () => {
      await migrateTo(db, '0039_job_quality');
      const k = db.kysely;
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('c', ${now}) returning id`.execute(k);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'p', 0, ${now}, ${now}) returning id`.execute(k);
      const version = async (name: string) => {
        const { rows } = await sql<{ id: number }>`insert into versions (project_id, name, description, split, image_count, object_count, created_at)
          values (${project[0]!.id}, ${name}, '', '{"method":"none"}', 1, 0, ${now}) returning id`.execute(k);
        await sql`insert into version_images (version_id, image_id, dataset_id, dataset_title, name, hash, width, height, annotation_hash, subset)
          values (${rows[0]!.id}, 1, 1, 'd', 'x.png', 'h', 4, 4, '', '')`.execute(k);
        return rows[0]!.id;
      };
      const rowsOf = async (versionId: number) => (await sql<{ n: number }>`select count(*) as n from version_images where version_id = ${versionId}`.execute(k)).rows[0]!.n;
      const missing = sql`insert into version_images (version_id, image_id, dataset_id, dataset_title, name, hash, width, height, annotation_hash, subset)
        values (999999, 1, 1, 'd', 'x.png', 'h', 4, 4, '', '')`;
      const before = await version('before');
      assert.deepEqual(await migrateTo(db, '0040_version_images_cascade'), ['0040_version_images_cascade']);
      const after = await version('after');
      await sql`delete from versions where id = ${before}`.execute(k);
      assert.equal(Number(await rowsOf(before)), 0);
      await sql`delete from projects where id = ${project[0]!.id}`.execute(k);
      assert.equal(Number(await rowsOf(after)), 0, 'the project deleted, its versions and their rows go');
      await migrateTo(db, '0039_job_quality');
      await assert.rejects(missing.execute(k), 'a row for no version is refused again');
    });

    test('0042 ends the project indexes by name and by object count with the dataset, analysed where the database was, and undoes cleanly', async () => {
      const k = db.kysely;
      const sqlite = dialect.name === 'sqlite';
      const columnsOf = async (index: string): Promise<string[]> => {
        if (sqlite) return (await sql<{ name: string }>`select name from pragma_index_info(${index}) order by seqno`.execute(k)).rows.map((r) => r.name);
        const { rows } = await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = ${index} and schemaname = current_schema()`.execute(k);
        return /\((.*)\)/.exec(rows[0]!.def)![1]!.split(', ');
      };
      const statsOf = async () =>
        (await sql<{ idx: string }>`select idx from sqlite_stat1 where idx in ('images_project_objects_idx', 'images_project_name_idx') order by idx`.execute(k)).rows.map((r) => r.idx);
      const analysed = async () => (await sql`select name from sqlite_master where name = 'sqlite_stat1'`.execute(k)).rows.length > 0;
      await migrateTo(db, '0041_striped_totals');
      assert.deepEqual(await columnsOf('images_project_objects_idx'), ['project_id', 'object_count', 'id']);
      assert.deepEqual(await migrateTo(db, '0042_image_order_covering'), ['0042_image_order_covering']);
      assert.deepEqual(await columnsOf('images_project_objects_idx'), ['project_id', 'object_count', 'id', 'dataset_id']);
      assert.deepEqual(await columnsOf('images_project_name_idx'), ['project_id', 'name', 'id', 'dataset_id']);
      if (sqlite) assert.equal(await analysed(), false, 'a database never analysed stays so');
      await migrateTo(db, '0041_striped_totals');
      assert.deepEqual(await columnsOf('images_project_objects_idx'), ['project_id', 'object_count', 'id']);
      assert.deepEqual(await columnsOf('images_project_name_idx'), ['project_id', 'name', 'id']);
      if (!sqlite) return;
      // ANALYZE writes no statistics of an empty index.
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('a', ${now}) returning id`.execute(k);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'p', 0, ${now}, ${now}) returning id`.execute(k);
      const { rows: dataset } = await sql<{ id: number }>`
        insert into datasets (project_id, title, size, created_at, updated_at) values (${project[0]!.id}, 'd', 0, ${now}, ${now}) returning id`.execute(k);
      await sql`insert into blobs (hash, size, media_type, width, height, created_at) values ('h', 1, 'image/png', 1, 1, ${now})`.execute(k);
      await sql`insert into images (dataset_id, project_id, name, hash, size, width, height, description, objects_json, created_at, updated_at)
        values (${dataset[0]!.id}, ${project[0]!.id}, 'a.png', 'h', 1, 1, 1, '', '[]', ${now}, ${now})`.execute(k);
      await sql`analyze`.execute(k);
      await migrateTo(db, '0042_image_order_covering');
      assert.deepEqual(await statsOf(), ['images_project_name_idx', 'images_project_objects_idx']);
    });

    test('0044 lets the SQLite insert triggers of the totals stand aside while a bulk insert holds its row, and undoes cleanly', async () => {
      const k = db.kysely;
      const tables = async () => (await k.introspection.getTables()).map((t) => t.name);
      const triggersSql = async () =>
        (await sql<{ sql: string }>`select sql from sqlite_master where type = 'trigger' and name in ('image_classes_totals_insert', 'images_totals_insert') order by name`.execute(k)).rows.map((r) => r.sql);
      await migrateTo(db, '0042_image_order_covering');
      const applied = await migrateTo(db, '0044_deferred_totals');
      assert.equal(applied.at(-1), '0044_deferred_totals');
      if (dialect.name !== 'sqlite') {
        assert.equal((await tables()).includes('totals_deferred'), false, 'PostgreSQL needs nothing: its triggers run per statement');
        return;
      }
      assert.ok((await tables()).includes('totals_deferred'));
      for (const text of await triggersSql()) assert.match(text, /when not exists \(select 1 from totals_deferred\)/);
      await migrateTo(db, '0042_image_order_covering');
      assert.equal((await tables()).includes('totals_deferred'), false);
      const before = await triggersSql();
      assert.equal(before.length, 2);
      for (const text of before) assert.doesNotMatch(text, /totals_deferred/);
    });

    test('0043 gives every dataset managers_only 0, and undoes cleanly', async () => {
      const k = db.kysely;
      await migrateTo(db, '0042_image_order_covering');
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('a', ${now}) returning id`.execute(k);
      const { rows: project } = await sql<{ id: number }>`
        insert into projects (team_id, title, size, created_at, updated_at) values (${team[0]!.id}, 'p', 0, ${now}, ${now}) returning id`.execute(k);
      await sql`insert into datasets (project_id, title, size, created_at, updated_at) values (${project[0]!.id}, 'before', 0, ${now}, ${now})`.execute(k);
      assert.deepEqual(await migrateTo(db, '0043_managers_only_datasets'), ['0043_managers_only_datasets']);
      const flags = async () => (await sql<{ title: string; managers_only: number }>`select title, managers_only from datasets order by id`.execute(k)).rows.map((r) => [r.title, Number(r.managers_only)]);
      assert.deepEqual(await flags(), [['before', 0]], 'a dataset made before stays an ordinary one');
      await sql`insert into datasets (project_id, title, size, created_at, updated_at) values (${project[0]!.id}, 'after', 0, ${now}, ${now})`.execute(k);
      await sql`update datasets set managers_only = 1 where title = 'before'`.execute(k);
      assert.deepEqual(await flags(), [['before', 1], ['after', 0]], 'a new dataset is an ordinary one by default');
      await migrateTo(db, '0042_image_order_covering');
      const { rows } = await sql<Record<string, unknown>>`select * from datasets order by id`.execute(k);
      assert.deepEqual(rows.map((r) => r.title), ['before', 'after'], 'undone, the datasets stay');
      assert.equal('managers_only' in rows[0]!, false);
    });
  });
}
