// Annotation blobs made at planning: stored, registered and staged for the team batch by batch, with
// the next batch filling while one is stored, and a failed write reported rather than lost.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { AnnotationBlobWriter } from '../../src/services/annotation-blobs.ts';
import { DEFAULT_TEAM } from '../../src/services/keys.service.ts';
import { dialects } from '../helpers/dialects.ts';

const annotation = (i: number) => Buffer.from(JSON.stringify({ description: '', tags: [], size: { width: 4, height: 4 }, objects: [{ n: i % 7 }] }));

for (const dialect of dialects) {
  describe(`annotation blobs on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let ctx: Context;
    let teamId: number;
    before(async () => {
      config = dialect.freshConfig();
      ctx = await createContext(config);
      teamId = await ensureTeam(ctx.db.kysely, DEFAULT_TEAM);
    });
    after(async () => {
      await ctx?.close();
      await dialect.cleanup(config);
    });

    test('every blob stored, registered and staged, across batches; equal annotations share one blob', async () => {
      const writer = new AnnotationBlobWriter(ctx, teamId, { batchSize: 3 });
      const hashes: string[] = [];
      for (let i = 0; i < 20; i++) hashes.push(await writer.add(annotation(i), `ds/img/${i}.png`));
      await writer.flush();
      const distinct = [...new Set(hashes)];
      assert.equal(distinct.length, 7);
      const db = ctx.db.kysely;
      const blobs = await db.selectFrom('blobs').select(['hash', 'media_type']).where('hash', 'in', distinct).execute();
      assert.deepEqual(blobs.map((b) => b.media_type), distinct.map(() => 'application/json'));
      for (const [i, hash] of hashes.entries()) assert.deepEqual(await ctx.blobs.readBytes(hash), annotation(i));
      const staged = await db.selectFrom('staged_files').select(['hash', 'kind', 'format', 'team_id', 'expires_at']).where('hash', 'in', distinct).execute();
      assert.deepEqual(new Set(staged.map((s) => s.hash)), new Set(distinct));
      for (const s of staged) {
        assert.deepEqual([s.kind, s.format, s.team_id], ['annotation', 'supervisely', teamId]);
        assert.ok(new Date(s.expires_at) > new Date());
      }
    });

    test('a batch is stored once its bytes reach batchBytes, before it has batchSize blobs', async () => {
      const writer = new AnnotationBlobWriter(ctx, teamId, { batchSize: 1000, batchBytes: 2 * annotation(100).length });
      const first = await writer.add(annotation(100), 'bytes/img/a.png');
      await writer.add(Buffer.from(`${annotation(101).toString()} `), 'bytes/img/b.png');
      // No flush: the batch went out when its second blob brought it to batchBytes.
      const db = ctx.db.kysely;
      const deadline = Date.now() + 20_000;
      while (!(await db.selectFrom('staged_files').select('hash').where('hash', '=', first).executeTakeFirst())) {
        assert.ok(Date.now() < deadline, 'the batch was not stored before flush');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await writer.flush();
    });

    test('a failed write rejects flush, and nothing is left unhandled meanwhile', async () => {
      const failing = Buffer.from('{"objects": "never stored"}');
      const blobs = Object.create(ctx.blobs) as Context['blobs'];
      blobs.putBytes = async (hash, bytes) => {
        if (bytes.equals(failing)) throw new Error('disk full');
        return ctx.blobs.putBytes(hash, bytes);
      };
      const writer = new AnnotationBlobWriter({ ...ctx, blobs }, teamId, { batchSize: 2 });
      await writer.add(failing, 'x/img/a.png');
      await writer.add(Buffer.from('{"objects": 1}'), 'x/img/b.png');
      // The first batch is being stored (and fails) while these fill the next.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await assert.rejects(
        (async () => {
          await writer.add(Buffer.from('{"objects": 2}'), 'x/img/c.png');
          await writer.add(Buffer.from('{"objects": 3}'), 'x/img/d.png');
          await writer.flush();
        })(),
        /disk full/,
      );
    });
  });
}
