// Rows inserted many at once arrive whole, whatever their number, and answer their returned columns.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { insertRows } from '../../src/db/bulk-insert.ts';
import { type Db, createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { dialects } from '../helpers/dialects.ts';

for (const dialect of dialects) {
  describe(`bulk inserts on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let db: Db;
    before(async () => {
      config = dialect.emptyConfig();
      db = await createDb(config);
      await migrateToLatest(db);
    });
    after(async () => {
      await db.close();
      await dialect.cleanup(config);
    });

    test('any number of rows goes in whole and in order, with every returned column', async () => {
      const k = db.kysely;
      const now = new Date().toISOString();
      let inserted = 0;
      for (const count of [1, 2, 3, 7, 64, 500, 731, 1023, 1100]) {
        const rows = Array.from({ length: count }, (_, i) => [`team ${count}/${i}`, now]);
        const answered = await insertRows<'teams', { id: number; name: string }>(k, 'teams', ['name', 'created_at'], rows, ['id', 'name']);
        assert.deepEqual(answered.map((r) => r.name).sort(), rows.map((r) => r[0]).sort(), `${count} rows`);
        const stored = await k.selectFrom('teams').select(['id', 'name']).where('name', 'like', `team ${count}/%`).orderBy('id').execute();
        assert.deepEqual(stored.map((r) => r.name), rows.map((r) => r[0]), `${count} rows in their order`);
        assert.deepEqual(answered.map((r) => r.id).sort((a, b) => a - b), stored.map((r) => r.id));
        inserted += count;
      }
      assert.equal(Number((await k.selectFrom('teams').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), inserted);
    });
  });
}
