// Thumbnails are made once, fit their size without enlarging, stand upright, bring the thumbhash, and
// leave with their image's blob. On both dialects, on the local blob store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import type { Config } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import * as datasets from '../../src/repositories/datasets.repository.ts';
import { thumbhashOf } from '../../src/repositories/thumbnails.repository.ts';
import { sweepBlobs } from '../../src/services/blob-sweep.service.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';

const HOUR = 60 * 60 * 1000;

for (const dialect of dialects) {
  describe(`thumbnails on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let ctx: Context;
    let datasetId: number;
    let teamId: number;
    before(async () => {
      config = dialect.freshConfig();
      ctx = await createContext(config);
      const projectId = await newProject(ctx, { title: 'thumbs' });
      datasetId = await newDataset(ctx, projectId);
      teamId = (await ctx.db.kysely.selectFrom('projects').select('team_id').where('id', '=', projectId).executeTakeFirstOrThrow()).team_id;
    });
    after(async () => {
      await ctx?.close();
      await dialect.cleanup(config);
    });

    const thumbnailRows = async (hash: string) => ctx.db.kysely.selectFrom('thumbnails').selectAll().where('hash', '=', hash).orderBy('size').execute();

    test('a 256 px thumbnail is a WebP inside 256 × 256, made once, with the thumbhash', async () => {
      const image = await newImage(ctx, datasetId, { bytes: await picture(640, 400, { seed: 1 }) });
      assert.equal(await thumbhashOf(ctx.db.kysely, image.hash), null);
      const before = ctx.thumbnails.rendered;
      const made = await ctx.thumbnails.thumbnail(image.hash, 256);
      const webp = await ctx.blobs.readBytes(made.key);
      const meta = await sharp(webp).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 256, 160]);
      assert.deepEqual([made.width, made.height, made.bytes], [256, 160, webp.length]);
      const thumbhash = await thumbhashOf(ctx.db.kysely, image.hash);
      assert.ok(thumbhash && Buffer.from(thumbhash, 'base64').length >= 5, 'a thumbhash in base64');

      assert.deepEqual(await ctx.thumbnails.thumbnail(image.hash, 256), made);
      assert.equal(ctx.thumbnails.rendered, before + 1);
      assert.equal((await thumbnailRows(image.hash)).length, 1);
    });

    test('concurrent first asks share one run; a small image is never enlarged', async () => {
      const image = await newImage(ctx, datasetId, { bytes: await picture(300, 200, { seed: 2 }) });
      const before = ctx.thumbnails.rendered;
      const all = await Promise.all(Array.from({ length: 6 }, () => ctx.thumbnails.thumbnail(image.hash, 1024)));
      assert.equal(ctx.thumbnails.rendered, before + 1);
      assert.ok(all.every((t) => t.key === all[0]!.key));
      const meta = await sharp(await ctx.blobs.readBytes(all[0]!.key)).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 300, 200]);
      // Only the grid size brings a thumbhash.
      assert.equal(await thumbhashOf(ctx.db.kysely, image.hash), null);
    });

    test('an image stored sideways (EXIF orientation 6) gets an upright thumbnail', async () => {
      const image = await newImage(ctx, datasetId, { bytes: await picture(400, 300, { seed: 3, orientation: 6 }) });
      const made = await ctx.thumbnails.thumbnail(image.hash, 256);
      const meta = await sharp(await ctx.blobs.readBytes(made.key)).metadata();
      assert.deepEqual([meta.width, meta.height], [192, 256]);
    });

    test('bytes that are no image answer UNSUPPORTED_MEDIA_TYPE and record nothing', async () => {
      const image = await newImage(ctx, datasetId, { bytes: Buffer.from('not a picture at all') });
      await assert.rejects(ctx.thumbnails.thumbnail(image.hash, 256), { code: 'UNSUPPORTED_MEDIA_TYPE' });
      assert.equal((await thumbnailRows(image.hash)).length, 0);
    });

    test('the blob sweep removes a blob’s thumbnails with it, but keeps bytes an upload shares', async () => {
      const project = await newProject(ctx, { title: 'swept' });
      const gone = await newDataset(ctx, project, 'gone');
      const kept = await newDataset(ctx, project, 'kept');
      const lonely = await newImage(ctx, gone, { bytes: await picture(500, 500, { seed: 4 }) });
      const shared = await newImage(ctx, gone, { bytes: await picture(500, 300, { seed: 5 }) });
      const lonelyThumbs = [await ctx.thumbnails.thumbnail(lonely.hash, 256), await ctx.thumbnails.thumbnail(lonely.hash, 1024)];
      const sharedThumb = await ctx.thumbnails.thumbnail(shared.hash, 256);
      // Someone uploaded the very bytes of that thumbnail as an image of their own.
      const upload = await newImage(ctx, kept, { bytes: await ctx.blobs.readBytes(sharedThumb.key), name: 'a-thumbnail.webp' });
      assert.equal(upload.hash, sharedThumb.key);

      assert.equal(await datasets.deleteDataset(ctx.db.kysely, teamId, gone), true);
      const result = await sweepBlobs(ctx, new Date(Date.now() + 2 * HOUR));
      assert.ok(result.blobsRemoved >= 2);
      assert.equal((await thumbnailRows(lonely.hash)).length, 0);
      assert.equal((await thumbnailRows(shared.hash)).length, 0);
      for (const t of lonelyThumbs) assert.equal(await ctx.blobs.has(t.key), false);
      assert.equal(await ctx.blobs.has(lonely.hash), false);
      assert.equal(await ctx.blobs.has(shared.hash), false);
      assert.equal(await ctx.blobs.has(upload.hash), true, 'the upload keeps its bytes');
    });

    test('a blob whose bytes are a thumbnail’s stays while that thumbnail does', async () => {
      const project = await newProject(ctx, { title: 'inverse' });
      const source = await newImage(ctx, await newDataset(ctx, project, 'source'), { bytes: await picture(320, 320, { seed: 6 }) });
      const thumb = await ctx.thumbnails.thumbnail(source.hash, 256);
      const copyDataset = await newDataset(ctx, project, 'copy');
      await newImage(ctx, copyDataset, { bytes: await ctx.blobs.readBytes(thumb.key), name: 'copy.webp' });
      assert.equal(await datasets.deleteDataset(ctx.db.kysely, teamId, copyDataset), true);
      await sweepBlobs(ctx, new Date(Date.now() + 2 * HOUR));
      assert.equal(await ctx.blobs.has(thumb.key), true, 'the thumbnail still has its bytes');
      assert.deepEqual(await ctx.thumbnails.thumbnail(source.hash, 256), thumb);
    });
  });
}
