// DTL graphs through POST /v2/exports on both databases: a graph over a peer fixture that renames,
// drops, boxes, splits and writes YOLO, read back by our YOLO reader; the same graph twice gives the
// same bytes; a bad graph is one 400 naming its layer.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { rectangleOf } from '../../src/dtl/geometry.ts';
import { readMaskSize } from '../../src/formats/supervisely/bitmap.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { importFolder, readExport } from '../helpers/export-round-trip.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { peerFixtureCopy } from '../helpers/fixture-copy.ts';
import { pngImage } from '../helpers/multipart.ts';
import type { TaskBody } from '../helpers/importing.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import sharp from 'sharp';

interface ExportAnswer {
  task: TaskBody;
  archive: { size: number } | null;
}

interface Problem {
  code: string;
  detail: string;
  layer?: number;
  action?: string;
  errors?: { pointer: string; detail: string; in: string }[];
}

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

for (const dialect of dialects) {
  describe(`DTL exports on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    let projectId: number;
    let title: string;

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      ({ projectId } = await importFolder(t, await peerFixtureCopy('datumaro/coco/coco_instances'), 'coco'));
      title = (await readExport(t, projectId)).project.title;
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const post = (payload: unknown, key?: string) => t.request({ method: 'POST', url: '/v2/exports', payload: payload as object, ...(key ? { key } : {}) });

    async function finished(id: number): Promise<ExportAnswer> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const answer = json<ExportAnswer>(await t.request({ method: 'GET', url: `/v2/exports/${id}` }));
        if (['finished', 'error', 'stopped'].includes(answer.task.status)) {
          assert.equal(answer.task.status, 'finished', JSON.stringify(answer.task.meta));
          return answer;
        }
        if (Date.now() > deadline) assert.fail(`export ${id} still ${answer.task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    async function runGraph(config: unknown[]): Promise<{ bytes: Buffer; answer: ExportAnswer }> {
      const res = await post({ config });
      assert.equal(res.statusCode, 201, res.body);
      const answer = await finished(json<ExportAnswer>(res).task.id);
      const download = await t.request({ method: 'GET', url: `/v2/exports/${answer.task.id}/archive` });
      assert.equal(download.statusCode, 200);
      return { bytes: download.rawPayload, answer };
    }

    function unpack(bytes: Buffer, label: string): string {
      const dir = scratchDir(`dtl-${label}`);
      const file = path.join(dir, '..', `${path.basename(dir)}.zip`);
      fs.writeFileSync(file, bytes);
      execFileSync('unzip', ['-q', file, '-d', dir]);
      fs.rmSync(file);
      return dir;
    }

    /** rename a → alpha, drop c, box everything, resize to 20 px wide, split by a seeded coin into train and val, YOLO. */
    const splitGraph = (seed: number) => [
      { action: 'data', src: [`${title}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
      { action: 'rename', src: ['$data'], dst: '$renamed', settings: { classes_mapping: { a: 'alpha' } } },
      { action: 'drop_obj_by_class', src: ['$renamed'], dst: '$kept', settings: { classes: ['c'] } },
      { action: 'bbox', src: ['$kept'], dst: '$boxes', settings: { classes_mapping: { __other__: '__default__' } } },
      { action: 'resize', src: ['$boxes'], dst: '$wide', settings: { width: 20, height: -1, aspect_ratio: { keep: true } } },
      { action: 'if', src: ['$wide'], dst: ['$train', '$val'], settings: { condition: { probability: 0.5 }, seed } },
      { action: 'dataset', src: ['$train'], dst: '$t', settings: { name: 'train' } },
      { action: 'dataset', src: ['$val'], dst: '$v', settings: { name: 'val' } },
      { action: 'yolo', src: ['$t', '$v'], dst: 'boxes', settings: { splits_from_datasets: true } },
    ];

    test('rename, drop, bbox, resize, split and YOLO: the archive read back has each object as its box, scaled, in its new class', async () => {
      const source = await readExport(t, projectId);
      const expected: string[] = [];
      for (const record of source.records) {
        for (const o of record.objects) {
          if (o.classTitle === 'c') continue;
          const bitmap = o.bitmap && { ...o.bitmap, ...readMaskSize(o.bitmap.data) };
          const box = rectangleOf({ ...o, bitmap })!;
          const cls = o.classTitle === 'a' ? 'alpha' : o.classTitle;
          const k = 20 / record.width;
          expected.push(`${record.name} ${cls} ${box.left * k},${box.top * k},${box.right * k},${box.bottom * k}`);
        }
      }
      assert.ok(expected.length >= 2, 'the fixture has objects to box');
      const { bytes, answer } = await runGraph(splitGraph(7));
      assert.equal(answer.task.meta.name, 'boxes');
      assert.deepEqual(answer.task.meta.skipped, { count: 0, first: [] });
      const dir = unpack(bytes, 'yolo');
      const names = fs.readFileSync(path.join(dir, 'data.yaml'), 'utf8');
      assert.match(names, /alpha/);
      assert.doesNotMatch(names, /\bc\b/);
      const again = await readExport(t, (await importFolder(t, dir, 'yolo')).projectId);
      const round = (n: number) => Math.round(n * 100) / 100;
      const got = again.records.flatMap((r) =>
        r.objects.map((o) => {
          const [[l, tp], [rt, b]] = o.points.exterior as [[number, number], [number, number]];
          return `${r.name} ${o.classTitle} ${round(l)},${round(tp)},${round(rt)},${round(b)}`;
        }),
      );
      assert.deepEqual(got.sort(), expected.sort());
      assert.ok(again.project.classes.every((c) => c.shape === 'rectangle'));
      assert.ok(again.records.every((r) => r.width === 20));
    });

    test('the same graph with the same seed twice gives the same archive, byte for byte', async () => {
      const first = await runGraph(splitGraph(11));
      const second = await runGraph(splitGraph(11));
      assert.ok(first.bytes.equals(second.bytes));
    });

    test('the output classes come from the graph before any image: renamed, boxed, a background first', async () => {
      const { bytes } = await runGraph([
        { action: 'data', src: [`${title}/*`], dst: '$data', settings: { classes_mapping: { a: 'alpha', c: '__ignore__' } } },
        { action: 'background', src: ['$data'], dst: '$bg', settings: { class: 'bg' } },
        { action: 'bbox', src: ['$bg'], dst: '$boxes', settings: { classes_mapping: { alpha: 'alpha_box' } } },
        { action: 'coco', src: ['$boxes'], dst: 'classes', settings: { images: false } },
      ]);
      const dir = unpack(bytes, 'classes');
      const files = fs.readdirSync(path.join(dir, 'annotations'));
      const source = await readExport(t, projectId);
      const expected = ['alpha_box', ...source.project.classes.map((c) => c.title).filter((c) => c !== 'a' && c !== 'c'), 'bg'];
      for (const file of files) {
        const coco = JSON.parse(fs.readFileSync(path.join(dir, 'annotations', file), 'utf8')) as { categories: { name: string }[]; annotations: { category_id: number; bbox: number[] }[]; images: { width: number; height: number }[] };
        assert.deepEqual(coco.categories.map((c) => c.name), expected);
        // Every image's first object is its background: the whole image, in class bg, a Supervisely
        // rectangle to its last column and row (COCO boxes it from corner to corner).
        const bg = expected.indexOf('bg') + 1;
        assert.deepEqual(coco.annotations.filter((a) => a.category_id === bg).map((a) => a.bbox), coco.images.map((i) => [0, 0, i.width - 1, i.height - 1]));
      }
    });

    test('an image that fails is skipped and counted; the others are written; names that meet are told apart', async () => {
      const pid = await newProject(t.ctx, { title: `skips ${dialect.name}`, classes: [{ title: 'blob', shape: 'bitmap' }, { title: 'car', shape: 'polygon' }] });
      const ds = await newDataset(t.ctx, pid, 'ds');
      await newImage(t.ctx, ds, { name: 'good.png', objects: [polygon('car', [[1, 1], [5, 1], [5, 5]])] });
      await newImage(t.ctx, ds, { name: 'bad.png', objects: [{ classTitle: 'blob', description: '', tags: [], bitmap: { origin: [0, 0], data: 'bm90IGEgbWFzaw==' }, points: { exterior: [], interior: [] } }] });
      const data = { action: 'data', src: [`skips ${dialect.name}/*`], dst: '$a', settings: { classes_mapping: 'default' } };
      const { bytes, answer } = await runGraph([
        data,
        { ...data, dst: '$b' },
        { action: 'save', src: ['$a', '$b'], dst: 'skips', settings: { images: false } },
      ]);
      assert.equal(answer.task.meta.skipped.count, 2);
      assert.equal(answer.task.meta.skipped.first[0].image, `skips ${dialect.name}/ds/bad.png`);
      const dir = unpack(bytes, 'skips');
      const annotations = fs.readdirSync(path.join(dir, `skips ${dialect.name}__ds`, 'ann')).sort();
      // The second data layer reads good.png again into the same dataset: it is renamed.
      assert.equal(annotations.length, 2);
      assert.equal(annotations[0], 'good.png.json');
      assert.match(annotations[1]!, /^good_[a-z0-9]{10}\.png\.json$/);
    });

    test('an item whose pixels a layer changed is encoded; one whose pixels stay is copied byte for byte', async () => {
      const pid = await newProject(t.ctx, { title: `pixels ${dialect.name}`, classes: [{ title: 'car', shape: 'polygon' }] });
      const ds = await newDataset(t.ctx, pid, 'ds');
      // Red on the left, blue on the right.
      const original = await sharp(Buffer.from([255, 0, 0, 0, 0, 255]), { raw: { width: 2, height: 1, channels: 3 } }).png().toBuffer();
      await newImage(t.ctx, ds, { name: 'p.png', bytes: original, width: 2, height: 1, objects: [polygon('car', [[0, 0], [1, 0], [1, 1]])] });
      const data = { action: 'data', src: [`pixels ${dialect.name}/*`], dst: '$data', settings: { classes_mapping: 'default' } };
      // vertical: about the vertical axis, so the left column goes right.
      const changed = await runGraph([data, { action: 'flip', src: ['$data'], dst: '$flipped', settings: { axis: 'vertical' } }, { action: 'save', src: ['$flipped'], dst: 'flipped', settings: {} }]);
      const flipped = fs.readFileSync(path.join(unpack(changed.bytes, 'flipped'), `pixels ${dialect.name}__ds`, 'img', 'p.png'));
      const { data: pixels, info } = await sharp(flipped).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([info.width, info.height], [2, 1]);
      assert.deepEqual([...pixels.subarray(0, info.channels * 2)].filter((_, i) => i % info.channels < 3), [0, 0, 255, 255, 0, 0]);
      const copied = await runGraph([data, { action: 'save', src: ['$data'], dst: 'same', settings: {} }]);
      assert.ok(fs.readFileSync(path.join(unpack(copied.bytes, 'same'), `pixels ${dialect.name}__ds`, 'img', 'p.png')).equals(original));
    });

    test('save with visualize: beside each annotation, the image with its objects drawn at half opacity in their class colour', async () => {
      const pid = await newProject(t.ctx, { title: `visual ${dialect.name}`, classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }] });
      const ds = await newDataset(t.ctx, pid, 'ds');
      // r 48, g 32, b 16 everywhere; the square covers the pixels (0..1, 0..1).
      await newImage(t.ctx, ds, { name: 'v.png', bytes: await pngImage(4, 2, 0x102030), width: 4, height: 2, objects: [polygon('car', [[0, 0], [2, 0], [2, 2], [0, 2]])] });
      const { bytes } = await runGraph([
        { action: 'data', src: [`visual ${dialect.name}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
        { action: 'save', src: ['$data'], dst: 'visual', settings: { visualize: true } },
      ]);
      const file = path.join(unpack(bytes, 'visual'), `visual ${dialect.name}__ds`, 'visualize', 'v.png.png');
      const { data: pixels } = await sharp(fs.readFileSync(file)).raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => [...pixels.subarray((y * 4 + x) * 3, (y * 4 + x) * 3 + 3)];
      assert.deepEqual(at(0, 0), [151, 16, 8]);
      assert.deepEqual(at(1, 1), [151, 16, 8]);
      assert.deepEqual(at(2, 0), [48, 32, 16]);
      assert.deepEqual(at(3, 1), [48, 32, 16]);
    });

    test('the supervisely output writes a new project of the team, in a task of its own type', async () => {
      const res = await post({
        config: [
          { action: 'data', src: [`${title}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
          { action: 'rename', src: ['$data'], dst: '$renamed', settings: { classes_mapping: { a: 'alpha' } } },
          { action: 'dataset', src: ['$renamed'], dst: '$one', settings: { name: 'all' } },
          { action: 'supervisely', src: ['$one'], dst: `copy of ${title}`, settings: {} },
        ],
      });
      assert.equal(res.statusCode, 201, res.body);
      const answer = await finished(json<ExportAnswer>(res).task.id);
      assert.equal(answer.task.type, 'dtl');
      assert.equal(answer.archive, null);
      const listed = json<{ id: number; type: string }[]>(await t.request({ method: 'GET', url: '/v1/tasks' }));
      assert.equal(listed.find((l) => l.id === answer.task.id)?.type, 'dtl');
      const archive = await t.request({ method: 'GET', url: `/v2/exports/${answer.task.id}/archive` });
      assert.equal(archive.statusCode, 404);
      const project = answer.task.meta.project as { id: number; title: string };
      assert.equal(project.title, `copy of ${title}`);
      const source = await readExport(t, projectId);
      const copy = await readExport(t, project.id);
      assert.deepEqual(copy.project.classes.map((c) => c.title), source.project.classes.map((c) => (c.title === 'a' ? 'alpha' : c.title)));
      const renamed = source.records.map((r) => ({ ...r, dataset: 'all', objects: r.objects.map((o) => ({ ...o, classTitle: o.classTitle === 'a' ? 'alpha' : o.classTitle })) }));
      assert.deepEqual(copy.records, renamed);
      // Another team sees neither the task nor the project.
      assert.equal((await t.request({ method: 'GET', url: `/v2/exports/${answer.task.id}`, key: t.otherKey })).statusCode, 404);
      assert.equal((await t.request({ method: 'GET', url: `/v2/projects/${project.id}`, key: t.otherKey })).statusCode, 404);
    });

    test('a bad graph is one 400 naming the layer, its action and the reason', async () => {
      const data = { action: 'data', src: [`${title}/*`], dst: '$data', settings: { classes_mapping: 'default' } };
      const save = (src: string) => ({ action: 'save', src: [src], dst: 'out', settings: {} });
      const cases: [unknown[], number, string, RegExp, string][] = [
        [[data, { action: 'drop_obj_by_class', src: ['$data'], dst: '$x', settings: { classes: ['nope'] } }, save('$x')], 1, 'drop_obj_by_class', /no class "nope"/, '/config/1/settings/classes/0'],
        [[data, { action: 'drop_obj_by_class', src: ['$data'], dst: '$x', settings: { classes: ['a', 'nope'] } }, save('$x')], 1, 'drop_obj_by_class', /no class "nope"/, '/config/1/settings/classes/1'],
        [[data, { action: 'bbox', src: ['$data'], dst: '$x', settings: { classes_mapping: 3 } }, save('$x')], 1, 'bbox', /settings/, '/config/1/settings/classes_mapping'],
        [[data, { action: 'dummy', src: ['$data', '$y'], dst: '$x', settings: {} }, { action: 'dummy', src: ['$x'], dst: '$y', settings: {} }, save('$x')], 1, 'dummy', /cycle/, '/config/1'],
        [[data, save('$data'), save('$data')], 2, 'save', /exactly one output/, '/config/2'],
        [[data, { action: 'resize', src: ['$data'], dst: '$x', settings: { width: 'wide', height: 10, aspect_ratio: { keep: false } } }, save('$x')], 1, 'resize', /settings\.width/, '/config/1/settings/width'],
        [[{ ...data, src: ['no such project/*'] }, save('$data')], 0, 'data', /no project/, '/config/0/src'],
        [[data, { action: 'if', src: ['$data'], dst: '$x', settings: { condition: { min_width: 3 } } }, save('$x')], 1, 'if', /two entries/, '/config/1/dst'],
        [[data, { action: 'if', src: ['$data'], dst: ['$x', 'null'], settings: { condition: { colour: 'red' } } }, save('$x')], 1, 'if', /^layer 1 \(if\): condition colour is not supported$/, '/config/1/settings/condition/colour'],
        [[data, { action: 'save_masks', src: ['$data'], dst: 'out', settings: { masks_machine: true, palette: 'voc' } }], 1, 'save_masks', /^layer 1 \(save_masks\): setting palette is not supported$/, '/config/1/settings/palette'],
        [[data, { action: 'sharpen', src: ['$data'], dst: '$x', settings: {} }, save('$x')], 1, 'sharpen', /unknown action/, '/config/1/action'],
        [[data, { action: 'rename', src: ['$data'], dst: '$x', settings: { classes_mapping: { a: '__new__' } } }, save('$x')], 1, 'rename', /not a target/, '/config/1/settings/classes_mapping/a'],
        [[data, { action: 'instances_crop', src: ['$data'], dst: '$x', settings: { classes: ['zebra'], pad: { sides: { top: '0px', left: '0px', right: '0px', bottom: '0px' } } } }, save('$x')], 1, 'instances_crop', /no class "zebra"/, '/config/1/settings/classes/0'],
        [[data, { action: 'rename', src: ['$data'], dst: '$x', settings: { classes_mapping: { a: 'alpha', 'no/such': 'x' } } }, save('$x')], 1, 'rename', /no class "no\/such"/, '/config/1/settings/classes_mapping/no~1such'],
      ];
      for (const [config, layer, action, reason, pointer] of cases) {
        const res = await post({ config });
        assert.equal(res.statusCode, 400, `${action}: ${res.body}`);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'VALIDATION');
        assert.equal(problem.layer, layer, res.body);
        assert.equal(problem.action, action);
        assert.match(problem.detail, reason);
        assert.equal(problem.errors?.[0]?.pointer, pointer, res.body);
        assert.equal(problem.errors?.[0]?.in, 'body', res.body);
      }
      // Another team's project is as absent as a missing one.
      const other = await post({ config: [data, save('$data')] }, t.otherKey);
      assert.equal(other.statusCode, 400);
      assert.match(json<Problem>(other).detail, /no project/);
      const both = await post({ config: [data, save('$data')], format: 'coco', projectId });
      assert.equal(both.statusCode, 400);
    });
  });
}
