// The two ways SQLite tests a name search (the set of a rare text's matches; an index probe per image
// for a common one) find the same images, in both sorts and with other filters; PostgreSQL has one way
// and must agree. A common text is one of 50,000 matches or more, too many to make here: the plan is
// given instead.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Context } from '../../src/context.ts';
import { createContext } from '../../src/context.ts';
import type { Config } from '../../src/config.ts';
import { nameContains, nameMatches, planNameSearch } from '../../src/db/name-search.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';

for (const dialect of dialects) {
  describe(`name search plans on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let ctx: Context;
    let datasetId: number;
    before(async () => {
      config = dialect.freshConfig();
      ctx = await createContext(config);
      const project = await newProject(ctx);
      datasetId = await newDataset(ctx, project);
      const other = await newDataset(ctx, project, 'other');
      for (const name of ['Frame-B.png', 'frame-a.png', 'FRAME-c.jpg', 'still.png', 'ab', 'Ärger-frame.png']) await newImage(ctx, datasetId, { name });
      await newImage(ctx, other, { name: 'frame-z.png' });
    });
    after(async () => {
      await ctx?.close();
      await dialect.cleanup(config);
    });

    const names = async (text: string, common: boolean, sort: 'id' | 'name') =>
      (
        await ctx.db.kysely
          .selectFrom('images')
          .select('name')
          .where('dataset_id', '=', datasetId)
          .where(nameContains(ctx.db.kysely, { text, common }))
          .orderBy(sort === 'id' ? 'id' : 'name')
          .execute()
      ).map((r) => r.name);

    test('a rare and a common plan find the same images', async () => {
      for (const sort of ['id', 'name'] as const) {
        for (const text of ['frame', 'ME-', 'äRGER', '.PNG', 'zzz']) {
          assert.deepEqual(await names(text, true, sort), await names(text, false, sort), `${text} by ${sort}`);
        }
      }
      assert.deepEqual(await names('frame', true, 'id'), ['Frame-B.png', 'frame-a.png', 'FRAME-c.jpg', 'Ärger-frame.png']);
    });

    test('a common text is counted by joining its matches: the same count', async () => {
      for (const text of ['frame', '.PNG', 'zzz']) {
        const search = { text, common: true };
        const matches = nameMatches(ctx.db.kysely, search);
        if (dialect.name === 'postgres') {
          assert.equal(matches, null, 'one way on PostgreSQL');
          continue;
        }
        const joined = await ctx.db.kysely
          .selectFrom('images')
          .innerJoin(matches!, (join) => join.onRef('name_matches.rowid', '=', 'images.id'))
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('dataset_id', '=', datasetId)
          .executeTakeFirstOrThrow();
        assert.equal(Number(joined.n), (await names(text, false, 'id')).length, text);
      }
    });

    test('a few matches plan as rare', async () => {
      assert.deepEqual(await planNameSearch(ctx.db.kysely, 'frame'), { text: 'frame', common: false });
      assert.deepEqual(await planNameSearch(ctx.db.kysely, 'ab'), { text: 'ab', common: false });
    });
  });
}
