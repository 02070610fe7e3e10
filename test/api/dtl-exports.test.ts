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
import { objectBox } from '../../src/dtl/geometry.ts';
import { readMaskSize } from '../../src/formats/supervisely/bitmap.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { scratchDir } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { importFolder, readExport } from '../helpers/export-round-trip.ts';
import { peerFixtureCopy } from '../helpers/fixture-copy.ts';
import type { TaskBody } from '../helpers/importing.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

interface ExportAnswer {
  task: TaskBody;
  archive: { size: number } | null;
}

interface Problem {
  code: string;
  detail: string;
  layer?: number;
  action?: string;
  errors?: { pointer: string; detail: string }[];
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

    /** rename a → alpha, drop c, box everything, split by a seeded coin into train and val, YOLO. */
    const splitGraph = (seed: number) => [
      { action: 'data', src: [`${title}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
      { action: 'rename', src: ['$data'], dst: '$renamed', settings: { classes_mapping: { a: 'alpha' } } },
      { action: 'drop_obj_by_class', src: ['$renamed'], dst: '$kept', settings: { classes: ['c'] } },
      { action: 'bbox', src: ['$kept'], dst: '$boxes', settings: { classes_mapping: { __other__: '__default__' } } },
      { action: 'if', src: ['$boxes'], dst: ['$train', '$val'], settings: { condition: { probability: 0.5 }, seed } },
      { action: 'dataset', src: ['$train'], dst: '$t', settings: { name: 'train' } },
      { action: 'dataset', src: ['$val'], dst: '$v', settings: { name: 'val' } },
      { action: 'yolo', src: ['$t', '$v'], dst: 'boxes', settings: { splits_from_datasets: true } },
    ];

    test('rename, drop, bbox, split and YOLO: the archive read back has each object as its box, in its new class', async () => {
      const source = await readExport(t, projectId);
      const expected: string[] = [];
      for (const record of source.records) {
        for (const o of record.objects) {
          if (o.classTitle === 'c') continue;
          const bitmap = o.bitmap && { ...o.bitmap, ...readMaskSize(o.bitmap.data) };
          const box = objectBox({ ...o, bitmap })!;
          const cls = o.classTitle === 'a' ? 'alpha' : o.classTitle;
          expected.push(`${record.name} ${cls} ${box.left},${box.top},${box.right},${box.bottom}`);
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
    });

    test('the same graph with the same seed twice gives the same archive, byte for byte', async () => {
      const first = await runGraph(splitGraph(11));
      const second = await runGraph(splitGraph(11));
      assert.ok(first.bytes.equals(second.bytes));
    });

    test('a bad graph is one 400 naming the layer, its action and the reason', async () => {
      const data = { action: 'data', src: [`${title}/*`], dst: '$data', settings: { classes_mapping: 'default' } };
      const save = (src: string) => ({ action: 'save', src: [src], dst: 'out', settings: {} });
      const cases: [unknown[], number, string, RegExp, string][] = [
        [[data, { action: 'drop_obj_by_class', src: ['$data'], dst: '$x', settings: { classes: ['nope'] } }, save('$x')], 1, 'drop_obj_by_class', /no class "nope"/, '/config/1/settings/classes'],
        [[data, { action: 'bbox', src: ['$data'], dst: '$x', settings: { classes_mapping: 3 } }, save('$x')], 1, 'bbox', /settings/, '/config/1/settings/classes_mapping'],
        [[data, { action: 'dummy', src: ['$data', '$y'], dst: '$x', settings: {} }, { action: 'dummy', src: ['$x'], dst: '$y', settings: {} }, save('$x')], 1, 'dummy', /cycle/, '/config/1'],
        [[data, save('$data'), save('$data')], 2, 'save', /exactly one output/, '/config/2'],
        [[data, { action: 'resize', src: ['$data'], dst: '$x', settings: { width: 10, height: 10, aspect_ratio: { keep: false } } }, save('$x')], 1, 'resize', /not supported yet/, '/config/1/action'],
        [[{ ...data, src: ['no such project/*'] }, save('$data')], 0, 'data', /no project/, '/config/0/src'],
        [[data, { action: 'if', src: ['$data'], dst: '$x', settings: { condition: { min_width: 3 } } }, save('$x')], 1, 'if', /two entries/, '/config/1/dst'],
        [[data, { action: 'dummy', src: ['$data'], dst: '$x', settings: {} }, save('$data')], 1, 'dummy', /no layer reads \$x/, '/config/1/dst'],
        [[data, { action: 'sharpen', src: ['$data'], dst: '$x', settings: {} }, save('$x')], 1, 'sharpen', /unknown action/, '/config/1/action'],
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
