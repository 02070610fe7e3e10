// What the web interface's schema editor relies on, on both databases: a class created without a
// colour takes the palette's next one, clearly apart from the project's others; a class's usage (the
// objects a cascading delete removes) is counted; an import's labels get distinct colours too, into
// a new project or one that has classes already.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLASS_PALETTE, TOO_CLOSE, colorDistance } from '../../src/formats/class-colors.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { importAndRead, uploadProject, waitForTask, withImportRunner } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json } from '../helpers/test-app.ts';
import { type List, assertProblem } from '../helpers/v2.ts';

interface Class {
  id: number;
  title: string;
  shape: string;
  color: string;
}

const TRIANGLE: [number, number][] = [[1, 1], [9, 1], [5, 8]];
const CHESS = ['white-king', 'white-queen', 'white-rook', 'white-bishop', 'white-knight', 'white-pawn', 'black-king', 'black-queen', 'black-rook', 'black-bishop', 'black-knight', 'black-pawn'];

function assertDistinct(colors: string[]): void {
  for (let i = 0; i < colors.length; i += 1) {
    for (let j = i + 1; j < colors.length; j += 1) {
      assert.ok(colorDistance(colors[i]!, colors[j]!) >= 20, `${colors[i]} and ${colors[j]} are alike (ΔE00 ${colorDistance(colors[i]!, colors[j]!).toFixed(1)})`);
    }
  }
}

for (const dialect of dialects) {
  describe(`class colours and usage under /v2 on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => (t = app));

    const create = async (projectId: number, body: object): Promise<Class> => {
      const res = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/classes`, payload: body });
      assert.equal(res.statusCode, 201, res.body);
      return json<Class>(res);
    };

    test('12 classes created without a colour get the palette’s, pairwise far apart; a colour given or changed is kept apart from', async () => {
      const projectId = await newProject(t.ctx, { title: 'chess by hand' });
      const given = await create(projectId, { title: 'board', shape: 'polygon', color: '#e8204e' });
      assert.equal(given.color, '#e8204e');
      const made: Class[] = [];
      for (const title of CHESS) made.push(await create(projectId, { title, shape: 'rectangle' }));
      assert.ok(made.every((c) => CLASS_PALETTE.includes(c.color)));
      // The red given first is as good as the palette's first: it is not handed out again.
      assert.ok(made.every((c) => colorDistance(c.color, given.color) >= TOO_CLOSE));
      assertDistinct(made.map((c) => c.color));

      const recoloured = await t.request({ method: 'PATCH', url: `/v2/classes/${made[0]!.id}`, payload: { color: '#000000' } });
      assert.equal(json<Class>(recoloured).color, '#000000');
      const next = await create(projectId, { title: 'clock', shape: 'point' });
      assert.ok([...made.slice(1), given].every((c) => colorDistance(c.color, next.color) >= TOO_CLOSE), next.color);
      assertProblem(await t.request({ method: 'POST', url: `/v2/projects/${projectId}/classes`, payload: { title: 'x', shape: 'point', color: 'green' } }), 400, 'VALIDATION');
    });

    test('a class’s usage counts its objects and the images holding them, as a cascading delete then removes', async () => {
      const projectId = await newProject(t.ctx, { title: 'usage', classes: [{ title: 'car', shape: 'polygon' }, { title: 'bus', shape: 'polygon' }, { title: 'tram', shape: 'polygon' }] });
      const datasetId = await newDataset(t.ctx, projectId);
      await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE), polygon('bus', TRIANGLE), polygon('car', TRIANGLE)] });
      await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE)] });
      await newImage(t.ctx, datasetId, { objects: [{ ...polygon('bus', TRIANGLE), description: '{"classTitle":"car",' }] });
      const [car, bus, tram] = json<List<Class>>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/classes` })).items;
      const usage = async (id: number, key?: string) => t.request({ method: 'GET', url: `/v2/classes/${id}/usage`, ...(key ? { key } : {}) });
      assert.deepEqual(json(await usage(car!.id)), { classId: car!.id, objects: 3, images: 2 });
      assert.deepEqual(json(await usage(bus!.id, t.readOnlyKey)), { classId: bus!.id, objects: 2, images: 2 });
      assert.deepEqual(json(await usage(tram!.id)), { classId: tram!.id, objects: 0, images: 0 });
      assertProblem(await usage(car!.id, t.otherKey), 404, 'NOT_FOUND');
      assertProblem(await usage(999_999), 404, 'NOT_FOUND');

      assert.equal((await t.request({ method: 'DELETE', url: `/v2/classes/${car!.id}?cascade=true` })).statusCode, 204);
      const [project] = json<List<{ id: number; counts: { objects: number } }>>(await t.request({ method: 'GET', url: '/v2/projects?title=usage&counts=true' })).items;
      assert.equal(project!.counts.objects, 2);
    });

    test('a YOLO import of 12 chess classes gives them distinct colours', async () => {
      const png = await pngImage(8, 8);
      const files = [
        { path: 'chess/data.yaml', content: Buffer.from(`names:\n${CHESS.map((n) => `  - ${n}`).join('\n')}\n`), type: 'annotation' as const, format: 'yolo' },
        { path: 'chess/images/train/board.png', content: png, type: 'image' as const, format: 'yolo' },
        { path: 'chess/labels/train/board.txt', content: Buffer.from(CHESS.map((_, i) => `${i} 0.5 0.5 0.2 0.2`).join('\n')), type: 'annotation' as const, format: 'yolo' },
      ];
      const imported = await importAndRead(t, files, 5, 'chess import');
      assert.deepEqual([...imported.classes.keys()], CHESS);
      const projectId = imported.task.meta.project.id as number;
      const classes = json<List<Class>>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/classes` })).items;
      assertDistinct(classes.map((c) => c.color));
    });

    test('labels imported into a project that has classes take colours apart from those classes', async () => {
      const projectId = await newProject(t.ctx, { title: 'chess existing', classes: CHESS.slice(0, 3).map((title, i) => ({ title, shape: 'rectangle', color: CLASS_PALETTE[i]! })) });
      const files = [
        { path: 'chess/data.yaml', content: Buffer.from(`names:\n${CHESS.map((n) => `  - ${n}`).join('\n')}\n`), type: 'annotation' as const, format: 'yolo' },
        { path: 'chess/images/train/board.png', content: await pngImage(8, 8), type: 'image' as const, format: 'yolo' },
        { path: 'chess/labels/train/board.txt', content: Buffer.from(CHESS.map((_, i) => `${i} 0.5 0.5 0.2 0.2`).join('\n')), type: 'annotation' as const, format: 'yolo' },
      ];
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: projectId }, preset: 5, files: await uploadProject(t, files) } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      const classes = json<List<Class>>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/classes` })).items;
      assert.deepEqual(classes.map((c) => c.title), CHESS);
      assert.deepEqual(classes.slice(0, 3).map((c) => c.color), CLASS_PALETTE.slice(0, 3), 'the project’s classes keep theirs');
      assertDistinct(classes.map((c) => c.color));
    });
  });
}
