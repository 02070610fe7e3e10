// A worker whose lease was taken over cannot commit work: the fence fails and its transaction rolls back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { dialects } from '../helpers/dialects.ts';

for (const dialect of dialects) {
  describe(`lease fence on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let ctx: Context;
    before(async () => {
      config = dialect.freshConfig();
      ctx = await createContext(config);
    });
    after(async () => {
      await ctx?.close();
      await dialect.cleanup(config);
    });

    test('only the current, unexpired lease holder passes the fence', async () => {
      const db = ctx.db.kysely;
      const teamId = await ensureTeam(db, 'fence');
      const id = await tasks.createTask(db, { teamId, userId: null, type: 'import', size: 0, meta: {}, input: {} });
      // The clock given to each step: a slow database cannot let the lease run out before it is checked.
      const start = Date.now();
      const at = (ms: number) => new Date(start + ms).toISOString();
      const first = await tasks.claimTask(db, { owner: 'worker-a', leaseMs: 100, now: at(0) });
      assert.equal(first?.id, id);
      assert.equal(await tasks.fenceLease(db, { id, owner: 'worker-a', now: at(50) }), true);
      assert.equal(await tasks.fenceLease(db, { id, owner: 'worker-b', now: at(50) }), false);

      // Expired: even the old holder is refused before anyone else claims the task.
      assert.equal(await tasks.fenceLease(db, { id, owner: 'worker-a', now: at(150) }), false);
      const second = await tasks.claimTask(db, { owner: 'worker-b', leaseMs: 10_000, now: at(150) });
      assert.equal(second?.id, id);

      // The old holder's transaction writes nothing; the new holder's commits.
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          if (!(await tasks.fenceLease(trx, { id, owner: 'worker-a' }))) throw new Error('lease lost');
          await trx.insertInto('import_items').values({ task_id: id, item: 0, image_id: null }).execute();
        }),
        /lease lost/,
      );
      await db.transaction().execute(async (trx) => {
        assert.equal(await tasks.fenceLease(trx, { id, owner: 'worker-b' }), true);
        await trx.insertInto('import_items').values({ task_id: id, item: 1, image_id: null }).execute();
      });
      const items = await db.selectFrom('import_items').select('item').where('task_id', '=', id).execute();
      assert.deepEqual(items.map((r) => r.item), [1]);
      const row = await db.selectFrom('tasks').select(['lease_owner']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.lease_owner, 'worker-b', 'the fence changes nothing');
    });
  });
}
