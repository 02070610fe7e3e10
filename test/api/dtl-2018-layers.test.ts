// The 2018 DTL layers through the real app on both databases: a graph that routes by the area of
// objects, turns a line into a band with line2bitmap and writes save_masks in the colours its
// gt_machine_color and gt_human_color give; and bad settings of each new layer, one 400 naming it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import sharp from 'sharp';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import type { TaskBody } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface Problem {
  code: string;
  detail: string;
  layer?: number;
  action?: string;
  errors?: { pointer: string; detail: string }[];
}

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

for (const dialect of dialects) {
  describe(`DTL 2018 layers on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    const project = `masks 2018 ${dialect.name}`;

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      const pid = await newProject(t.ctx, {
        title: project,
        classes: [
          { title: 'car', shape: 'polygon', color: '#FF0000' },
          { title: 'road', shape: 'line', color: '#00FF00' },
          { title: 'tree', shape: 'polygon', color: '#0000FF' },
        ],
      });
      const ds = await newDataset(t.ctx, pid, 'ds');
      // 8 × 6: a car on pixels 0–2 × 0–2, a tree on 5–7 × 0–1, a road along row 4 from x 4 to 7.
      await newImage(t.ctx, ds, {
        name: 'big.png',
        bytes: await pngImage(8, 6, 1),
        width: 8,
        height: 6,
        objects: [polygon('car', [[0, 0], [3, 0], [3, 3], [0, 3]]), polygon('tree', [[5, 0], [8, 0], [8, 2], [5, 2]]), polygon('road', [[4, 4], [7, 4]])],
      });
      // A car of one pixel: too little car for the area condition.
      // A longer road alone, 16 × 7.
      await newImage(t.ctx, ds, { name: 'long.png', bytes: await pngImage(16, 7, 3), width: 16, height: 7, objects: [polygon('road', [[2, 3], [13, 3]])] });
      await newImage(t.ctx, ds, { name: 'small.png', bytes: await pngImage(8, 6, 2), width: 8, height: 6, objects: [polygon('car', [[0, 0], [1, 0], [1, 1], [0, 1]])] });
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const post = (config: unknown[]) => t.request({ method: 'POST', url: '/v2/exports', payload: { config } });

    async function archiveOf(config: unknown[]): Promise<string> {
      const res = await post(config);
      assert.equal(res.statusCode, 201, res.body);
      const id = json<{ task: TaskBody }>(res).task.id;
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { task } = json<{ task: TaskBody }>(await t.request({ method: 'GET', url: `/v2/exports/${id}` }));
        if (['finished', 'error', 'stopped'].includes(task.status)) {
          assert.equal(task.status, 'finished', JSON.stringify(task.meta));
          assert.deepEqual(task.meta.skipped, { count: 0, first: [] });
          break;
        }
        if (Date.now() > deadline) assert.fail(`export ${id} still ${task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const download = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` });
      assert.equal(download.statusCode, 200);
      const dir = scratchDir(`dtl-2018-${dialect.name}`);
      const file = path.join(dir, '..', `${path.basename(dir)}.zip`);
      fs.writeFileSync(file, download.rawPayload);
      execFileSync('unzip', ['-q', file, '-d', dir]);
      fs.rmSync(file);
      return dir;
    }

    /** The RGB of each pixel of a PNG, row by row, as "r,g,b". */
    async function colours(file: string): Promise<string[][]> {
      const { data, info } = await sharp(fs.readFileSync(file)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      return Array.from({ length: info.height }, (_, y) => Array.from({ length: info.width }, (_, x) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)].join(',')));
    }

    test('if sum_object_area, line2bitmap and save_masks with gt_machine_color and gt_human_color: the masks are in the colours given', async () => {
      const dir = await archiveOf([
        { action: 'data', src: [`${project}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
        { action: 'if', src: ['$data'], dst: ['$cars', 'null'], settings: { condition: { sum_object_area: 4, classes: ['car'] } } },
        { action: 'line2bitmap', src: ['$cars'], dst: '$bands', settings: { classes_mapping: { road: 'road_band' }, width: 3 } },
        {
          action: 'save_masks',
          src: ['$bands'],
          dst: 'masks',
          settings: {
            masks_machine: true,
            masks_human: true,
            // ghost is no class of the output: it is passed over.
            gt_machine_color: { car: [10, 10, 10], road_band: [200, 100, 50], ghost: [5, 5, 5] },
            gt_human_color: { car: [0, 0, 0], road_band: [0, 0, 255] },
          },
        },
      ]);
      const folder = path.join(dir, `${project}__ds`);
      // small.png's car covers 1 pixel, less than 4, and long.png has none: they went to the dead end.
      assert.deepEqual(fs.readdirSync(path.join(folder, 'ann')), ['big.png.json']);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { classes: { title: string; shape: string }[] };
      assert.deepEqual(meta.classes.map((c) => `${c.title}:${c.shape}`), ['car:polygon', 'road_band:bitmap', 'tree:polygon']);
      const C = '10,10,10';
      const R = '200,100,50';
      const _ = '0,0,0';
      // The band: pixels within 1.5 of row 4 from x 4 to 7 (rows 3–5, x 3–7 in an 8-pixel image); the tree is in no map.
      assert.deepEqual(await colours(path.join(folder, 'masks_machine', 'big.png')), [
        [C, C, C, _, _, _, _, _],
        [C, C, C, _, _, _, _, _],
        [C, C, C, _, _, _, _, _],
        [_, _, _, R, R, R, R, R],
        [_, _, _, R, R, R, R, R],
        [_, _, _, R, R, R, R, R],
      ]);
      const { channels } = await sharp(fs.readFileSync(path.join(folder, 'masks_machine', 'big.png'))).metadata();
      assert.equal(channels, 3);
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'obj_class_to_machine_color.json'), 'utf8')), { car: [10, 10, 10], road_band: [200, 100, 50] });
      // The human mask: a black class is drawn (1, 1, 1), so that it shows against the background.
      const K = '1,1,1';
      const B = '0,0,255';
      assert.deepEqual(await colours(path.join(folder, 'masks_human', 'big.png')), [
        [K, K, K, _, _, _, _, _],
        [K, K, K, _, _, _, _, _],
        [K, K, K, _, _, _, _, _],
        [_, _, _, B, B, B, B, B],
        [_, _, _, B, B, B, B, B],
        [_, _, _, B, B, B, B, B],
      ]);
    });

    test('skeletonize and bitmap2lines after line2bitmap: the band thinned to its centre line, then a line', async () => {
      const dir = await archiveOf([
        { action: 'data', src: [`${project}/*`], dst: '$data', settings: { classes_mapping: { road: '__default__', __other__: '__ignore__' } } },
        { action: 'line2bitmap', src: ['$data'], dst: '$bands', settings: { classes_mapping: { road: 'road_band' }, width: 3 } },
        { action: 'skeletonize', src: ['$bands'], dst: '$thin', settings: { classes: ['road_band'], method: 'thinning' } },
        { action: 'bitmap2lines', src: ['$thin'], dst: '$lines', settings: { classes_mapping: { road_band: 'road_line' }, min_points_cnt: 2, approx_epsilon: 1 } },
        { action: 'save', src: ['$lines'], dst: 'lines', settings: { images: false } },
      ]);
      const objects = (name: string) => (JSON.parse(fs.readFileSync(path.join(dir, `${project}__ds`, 'ann', `${name}.json`), 'utf8')) as { objects: { classTitle: string; points: { exterior: number[][] } }[] }).objects;
      // long.png: the band covers x 1–14 of rows 2–4; thinned, it is row 3 from x 2 to 13 (Guo-Hall wears one pixel off each end).
      assert.deepEqual(objects('long.png').map((o) => [o.classTitle, o.points.exterior]), [['road_line', [[2, 3], [13, 3]]]]);
      // big.png: the band of x 3–7 thins to three pixels, too few steps to be a line.
      assert.deepEqual(objects('big.png'), []);
    });

    test('bad settings of the new layers are one 400 naming the layer, its action and the setting', async () => {
      const data = { action: 'data', src: [`${project}/*`], dst: '$data', settings: { classes_mapping: 'default' } };
      const save = { action: 'save', src: ['$x'], dst: 'out', settings: {} };
      const layer = (action: string, settings: object, dst: string | string[] = '$x') => [data, { action, src: ['$data'], dst, settings }, save];
      const cases: [unknown[], string, RegExp, string][] = [
        [layer('line2bitmap', { classes_mapping: { road: 'band' }, width: 0 }), 'line2bitmap', /settings\.width/, '/config/1/settings/width'],
        [layer('line2bitmap', { classes_mapping: { lane: 'band' }, width: 2 }), 'line2bitmap', /no class "lane"/, '/config/1/settings/classes_mapping/lane'],
        [layer('skeletonize', { classes: ['car'], method: 'erosion' }), 'skeletonize', /settings\.method/, '/config/1/settings/method'],
        [layer('skeletonize', { classes: ['bus'], method: 'thinning' }), 'skeletonize', /no class "bus"/, '/config/1/settings/classes/0'],
        [layer('bitmap2lines', { classes_mapping: { car: 'x' }, min_points_cnt: 1 }), 'bitmap2lines', /settings\.min_points_cnt/, '/config/1/settings/min_points_cnt'],
        [layer('bitmap2lines', { classes_mapping: { car: 'x' }, min_points_cnt: 2, approx_epsilon: -1 }), 'bitmap2lines', /settings\.approx_epsilon/, '/config/1/settings/approx_epsilon'],
        [layer('if', { condition: { sum_object_area: 10, classes: ['bus'] } }, ['$x', 'null']), 'if', /no class "bus"/, '/config/1/settings/condition/classes/0'],
        [layer('color_class', { classes_color_mapping: { car: 'red' } }), 'color_class', /settings\.classes_color_mapping\.car/, '/config/1/settings/classes_color_mapping/car'],
        [layer('drop_lines_by_length', { lines_class: 'road' }), 'drop_lines_by_length', /min_length, max_length or both/, '/config/1/settings'],
        [layer('merge_bitmap_masks', { class: 'bus' }), 'merge_bitmap_masks', /no class "bus"/, '/config/1/settings/class'],
        [layer('bitwise_masks', { type: 'xor', class_mask: 'car', classes_to_correct: ['tree'] }), 'bitwise_masks', /settings\.type/, '/config/1/settings/type'],
        [layer('generate_hints', { class: 'car', positive_class: 'pos', negative_class: 'neg', min_points_number: -1 }), 'generate_hints', /settings\.min_points_number/, '/config/1/settings/min_points_number'],
        [layer('generate_hints', { class: 'car', positive_class: 'pos', negative_class: 'tree', min_points_number: 2 }), 'generate_hints', /both a polygon and a point/, '/config/1/settings/negative_class'],
        [[data, { action: 'save_masks', src: ['$data'], dst: 'out', settings: { gt_machine_color: { car: [10, 10] } } }], 'save_masks', /settings\.gt_machine_color\.car/, '/config/1/settings/gt_machine_color/car'],
        [[data, { action: 'save_masks', src: ['$data'], dst: 'out', settings: { gt_human_color: { car: [0, 0, 256] } } }], 'save_masks', /settings\.gt_human_color\.car\.2/, '/config/1/settings/gt_human_color/car/2'],
      ];
      for (const [config, action, reason, pointer] of cases) {
        const res = await post(config);
        assert.equal(res.statusCode, 400, `${action}: ${res.body}`);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'VALIDATION');
        assert.equal(problem.layer, 1, res.body);
        assert.equal(problem.action, action);
        assert.match(problem.detail, new RegExp(`^layer 1 \\(${action}\\): `));
        assert.match(problem.detail, reason);
        assert.equal(problem.errors?.[0]?.pointer, pointer, res.body);
      }
    });
  });
}
