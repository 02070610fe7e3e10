// The blob sweep reclaims bytes no image or staged upload uses, and never anything still in use.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Context, createContext } from '../../src/context.ts';
import type { Config } from '../../src/config.ts';
import * as datasets from '../../src/repositories/datasets.repository.ts';
import * as projects from '../../src/repositories/projects.repository.ts';
import { sweepBlobs } from '../../src/services/blob-sweep.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';

const HOUR = 60 * 60 * 1000;

for (const dialect of dialects) {
  describe(`blob sweep on ${dialect.name}`, { skip: dialect.skip }, () => {
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

    test('deleted images lose their bytes; shared, staged and fresh bytes stay', async () => {
      const teamProject = await newProject(ctx, { title: 'sweep' });
      const keep = await newDataset(ctx, teamProject, 'keep');
      const drop = await newDataset(ctx, teamProject, 'drop');
      const shared = Buffer.from('bytes used twice');
      const kept = await newImage(ctx, keep, { bytes: shared });
      await newImage(ctx, drop, { bytes: shared, name: 'same-bytes.png' });
      const lonely = await newImage(ctx, drop);
      const otherProject = await newProject(ctx, { title: 'gone' });
      const gone = await newImage(ctx, await newDataset(ctx, otherProject));

      const db = ctx.db.kysely;
      const teamId = (await db.selectFrom('projects').select('team_id').where('id', '=', teamProject).executeTakeFirstOrThrow()).team_id;
      assert.equal(await datasets.deleteDataset(db, teamId, drop), true);
      assert.equal(await projects.deleteProject(db, teamId, otherProject), true);

      // Fresh blobs are left alone: an import may be about to use them.
      assert.equal((await sweepBlobs(ctx, new Date())).blobsRemoved, 0);
      const result = await sweepBlobs(ctx, new Date(Date.now() + 2 * HOUR));
      assert.equal(result.blobsRemoved, 2);
      assert.equal(await ctx.blobs.has(lonely.hash), false);
      assert.equal(await ctx.blobs.has(gone.hash), false);
      assert.equal(await ctx.blobs.has(kept.hash), true);
      assert.deepEqual(await ctx.blobs.readBytes(kept.hash), shared);
      const rows = await db.selectFrom('blobs').select('hash').execute();
      assert.deepEqual(rows.map((r) => r.hash), [kept.hash]);
    });

    test('staged uploads keep their bytes until they expire', async () => {
      const db = ctx.db.kysely;
      const projectId = await newProject(ctx, { title: 'staged' });
      const ds = await newDataset(ctx, projectId);
      const image = await newImage(ctx, ds);
      const teamId = (await db.selectFrom('projects').select('team_id').where('id', '=', projectId).executeTakeFirstOrThrow()).team_id;
      const now = Date.now();
      await db
        .insertInto('staged_files')
        .values({ id: 'f_test', team_id: teamId, kind: 'image', format: 'images', name: 'x.png', hash: image.hash, size: image.size, created_at: new Date(now).toISOString(), expires_at: new Date(now + 24 * HOUR).toISOString() })
        .execute();
      await projects.deleteProject(db, teamId, projectId);
      assert.equal((await sweepBlobs(ctx, new Date(now + 2 * HOUR))).blobsRemoved, 0);
      assert.equal(await ctx.blobs.has(image.hash), true);
      const later = await sweepBlobs(ctx, new Date(now + 25 * HOUR));
      assert.equal(later.expiredUploads, 1);
      assert.equal(later.blobsRemoved, 1);
      assert.equal(await ctx.blobs.has(image.hash), false);
    });
  });
}
