// An import task reads its plan a part at a time: the items it still has to import come out whole, in
// order, each with its place in the plan, across the parts' edges and around the items done already.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { type Db, createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { type ImportItem, PLAN_PART_ITEMS, insertPlan } from '../../src/repositories/import.repository.ts';
import { createTask } from '../../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { PendingItems, summarisePlan } from '../../src/tasks/handlers/import-plan-reader.ts';
import { dialects } from '../helpers/dialects.ts';

for (const dialect of dialects) {
  describe(`an import's plan read in parts on ${dialect.name}`, { skip: dialect.skip }, () => {
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

    test('the items not done come out in order with their places, across parts, and are counted', async () => {
      const k = db.kysely;
      const teamId = await ensureTeam(k, 'plans');
      const total = 2 * PLAN_PART_ITEMS + 345;
      const items: ImportItem[] = Array.from({ length: total }, (_, i) => ({ d: 1, n: `${i}.png`, h: `h${i}`, a: i % 3 ? `a${i}` : null, p: `ds/img/${i}.png` }));
      const taskId = await createTask(k, { teamId, userId: null, type: 'import', size: 0, meta: {}, input: {} });
      await insertPlan(k, taskId, items);
      // Done: the whole first part but its last item, every seventh item after, and the very last.
      const done = new Set<number>();
      for (let i = 0; i < PLAN_PART_ITEMS - 1; i += 1) done.add(i);
      for (let i = PLAN_PART_ITEMS; i < total; i += 7) done.add(i);
      done.add(total - 1);
      const expected = items.map((item, index) => ({ item, index })).filter(({ index }) => !done.has(index));

      assert.deepEqual(await summarisePlan(k, taskId, done), { total, pending: expected.length, annotatedPending: expected.filter((e) => e.item.a).length });
      const reader = new PendingItems(k, taskId, done);
      const taken = [];
      for (;;) {
        const slice = await reader.take(500);
        if (slice.length === 0) break;
        assert.ok(slice.length === 500 || taken.length + slice.length === expected.length, 'only the last slice is short');
        taken.push(...slice);
      }
      assert.deepEqual(taken, expected);
      assert.deepEqual(await reader.take(500), [], 'nothing more once every item was taken');

      const none = new PendingItems(k, taskId, new Set(items.map((_, i) => i)));
      assert.deepEqual(await none.take(10), []);
      assert.deepEqual(await summarisePlan(k, 999_999, new Set()), { total: 0, pending: 0, annotatedPending: 0 });
    });
  });
}
