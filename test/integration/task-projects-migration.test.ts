// 0024 gives the tasks already there their project, from what each held before (an import's meta, an
// export's input, a thumbnails task's import), and an export its format in its meta; undone, the
// column goes. On both dialects.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Config } from '../../src/config.ts';
import { type Db, createDb } from '../../src/db/create-db.ts';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.ts';
import { dialects } from '../helpers/dialects.ts';

for (const dialect of dialects) {
  describe(`migration 0024 on ${dialect.name}`, { skip: dialect.skip }, () => {
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

    async function task(teamId: number, type: string, meta: object, input: object): Promise<number> {
      const now = new Date().toISOString();
      const { rows } = await sql<{ id: number }>`
        insert into tasks (team_id, type, status, size, meta, created_at, stop_requested, attempts)
        values (${teamId}, ${type}, 'finished', 0, ${JSON.stringify(meta)}, ${now}, 0, 0) returning id`.execute(db.kysely);
      await sql`insert into task_inputs (task_id, input) values (${rows[0]!.id}, ${JSON.stringify(input)})`.execute(db.kysely);
      return rows[0]!.id;
    }

    test('imports, exports and an import’s thumbnails learn their project; an export its format', async () => {
      await migrateTo(db, '0017_object_tag_values');
      const now = new Date().toISOString();
      const { rows: team } = await sql<{ id: number }>`insert into teams (name, created_at) values ('t', ${now}) returning id`.execute(db.kysely);
      const teamId = team[0]!.id;
      const imp = await task(teamId, 'import', { project: { id: 5, isNew: true, title: 'cars' }, format: 'coco' }, {});
      const exp = await task(teamId, 'export', { name: 'cars-yolo' }, { projectId: 6, writer: { format: 'yolo' } });
      const thumbs = await task(teamId, 'thumbnails', { made: 0 }, { importTaskId: imp });
      const upload = await task(teamId, 'thumbnails', { made: 0 }, { hashes: ['x'] });
      const broken = await task(teamId, 'import', { project: 'not an object' }, {});
      assert.ok((await migrateToLatest(db)).includes('0024_task_projects'));

      const { rows } = await sql<{ id: number; project_id: number | null; meta: string }>`select id, project_id, meta from tasks order by id`.execute(db.kysely);
      const byId = new Map(rows.map((r) => [r.id, r]));
      assert.deepEqual([imp, exp, thumbs, upload, broken].map((id) => byId.get(id)!.project_id), [5, 6, 5, null, null]);
      assert.deepEqual(JSON.parse(byId.get(exp)!.meta), { name: 'cars-yolo', format: 'yolo' });
      assert.deepEqual(JSON.parse(byId.get(imp)!.meta), { project: { id: 5, isNew: true, title: 'cars' }, format: 'coco' });

      await migrateTo(db, '0017_object_tag_values');
      // This test's own schema on PostgreSQL: the database may hold other schemas with a tasks table.
      const ours = (await db.kysely.introspection.getTables()).find((t) => t.name === 'tasks' && (config.databaseSchema === undefined || t.schema === config.databaseSchema));
      const columns = ours!.columns.map((c) => c.name);
      assert.ok(!columns.includes('project_id'));
    });
  });
}
