// What an import of foreign annotations refuses or trims as its files are read, on both databases:
// an image past the objects limit ends its file there (with the limit in the answer), and a file of
// hundreds of thousands of warnings imports with the first ones kept and the rest counted.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { KEPT_WARNINGS } from '../../src/formats/kept-warnings.ts';
import { MAX_OBJECTS_PER_ANNOTATION } from '../../src/formats/supervisely/index.ts';
import { dialects } from '../helpers/dialects.ts';
import { type ProjectFile, uploadProject, waitForTask, withImportRunner } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json } from '../helpers/test-app.ts';
import { assertProblem } from '../helpers/v2.ts';

/** A COCO file of one image `a.png` with `objects` boxes on it and `strays` boxes on an image it does not list. */
function cocoFile(objects: number, strays = 0): Buffer {
  const parts = ['{"images":[{"id":1,"file_name":"a.png","width":32,"height":32}],"categories":[{"id":1,"name":"dot"}],"annotations":['];
  let id = 0;
  const box = (imageId: number) => `${id ? ',' : ''}{"id":${++id},"image_id":${imageId},"category_id":1,"bbox":[1,1,2,2]}`;
  for (let k = 0; k < objects; k += 1) parts.push(box(1));
  for (let k = 0; k < strays; k += 1) parts.push(box(2));
  parts.push(']}');
  return Buffer.from(parts.join(''));
}

for (const dialect of dialects) {
  describe(`import limits while reading (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => (t = app));

    async function upload(annotations: ProjectFile[]) {
      return uploadProject(t, [{ path: 'images/a.png', content: await pngImage(32, 32), type: 'image' }, ...annotations]);
    }

    test(`COCO: an image with more than ${MAX_OBJECTS_PER_ANNOTATION} objects is refused at the first past the limit, naming it (v2 and v1)`, async () => {
      const files = await upload([{ path: 'annotations/instances_default.json', content: cocoFile(200_000), type: 'annotation', format: 'coco' }]);
      const started = Date.now();
      const v2 = await t.request({ method: 'POST', url: '/v2/imports', payload: { project: { id: null, title: 'too many' }, preset: 3, files } });
      const problem = assertProblem(v2, 400, 'VALIDATION');
      assert.match(problem.detail!, new RegExp(`annotations\\[${MAX_OBJECTS_PER_ANNOTATION}\\]: image "a.png" \\(id 1\\) has more than ${MAX_OBJECTS_PER_ANNOTATION} objects; the limit is ${MAX_OBJECTS_PER_ANNOTATION} objects per image`));
      const v1 = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'too many' }, preset: 3, files } });
      assert.equal(v1.statusCode, 400, v1.body);
      assert.match(v1.body, /the limit is 10000 objects per image/);
      assert.ok(Date.now() - started < 20_000, 'refused without reading every object');
      const projects = json<{ title: string }[]>(await t.request({ method: 'GET', url: '/v1/projects' }));
      assert.ok(!projects.some((p) => p.title === 'too many'), 'nothing is created');
    });

    test(`COCO: exactly ${MAX_OBJECTS_PER_ANNOTATION} objects on an image import`, async () => {
      const files = await upload([{ path: 'annotations/instances_default.json', content: cocoFile(MAX_OBJECTS_PER_ANNOTATION), type: 'annotation', format: 'coco' }]);
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'at the limit' }, preset: 3, files } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId, undefined, 60_000);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      assert.equal(task.meta.imported, 1);
    });

    test(`COCO: 200,000 warnings import, the first ${KEPT_WARNINGS} kept in the task's meta and the rest counted`, async () => {
      const files = await upload([{ path: 'annotations/instances_default.json', content: cocoFile(1, 200_000), type: 'annotation', format: 'coco' }]);
      const res = await t.request({ method: 'POST', url: '/v2/imports', payload: { project: { id: null, title: 'many warnings' }, preset: 3, files } });
      assert.equal(res.statusCode, 201, res.body);
      const task = await waitForTask(t, json<{ task: { id: number } }>(res).task.id, undefined, 60_000);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta).slice(0, 500));
      assert.equal(task.meta.imported, 1);
      assert.equal(task.meta.warnings.length, KEPT_WARNINGS);
      assert.equal(task.meta.moreWarnings, 200_000 - KEPT_WARNINGS);
      assert.match(task.meta.warnings[0].message, /^annotations\[1\] \(id 2\): image_id 2 is not in images; it is ignored$/);
    });
  
    /** Starts an import of `files` with `preset` through v1 and answers the refusal's message. */
    async function refusal(files: Awaited<ReturnType<typeof upload>>, preset: number): Promise<string> {
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'refused' }, preset, files } });
      assert.equal(res.statusCode, 400, res.body);
      return res.body;
    }

    test(`Pascal VOC: an XML of more than ${MAX_OBJECTS_PER_ANNOTATION} objects is refused at the first past the limit, naming it`, async () => {
      const object = '<object><name>dot</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></object>';
      const xml = `<annotation><filename>a.png</filename>${object.repeat(MAX_OBJECTS_PER_ANNOTATION + 1)}</annotation>`;
      const files = await upload([{ path: 'Annotations/a.xml', content: Buffer.from(xml), type: 'annotation', format: 'pascal_voc' }]);
      assert.match(await refusal(files, 4), /Annotations\/a\.xml: more than 10000 objects \(<object> and <part> elements\); the limit is 10000 objects per image; its image is not imported/);
    });

    test(`YOLO: a label file of more than ${MAX_OBJECTS_PER_ANNOTATION} objects is refused at the first past the limit, naming it`, async () => {
      const labels = '0 0.5 0.5 0.1 0.1\n'.repeat(MAX_OBJECTS_PER_ANNOTATION + 5);
      const files = await upload([
        { path: 'classes.txt', content: Buffer.from('dot\n'), type: 'annotation', format: 'yolo' },
        { path: 'labels/a.txt', content: Buffer.from(labels), type: 'annotation', format: 'yolo' },
      ]);
      assert.match(await refusal(files, 5), /labels\/a\.txt:10001: more than 10000 objects; the limit is 10000 objects per image; its image is not imported/);
    });

    test(`Supervisely: an annotation of more than ${MAX_OBJECTS_PER_ANNOTATION} objects fails its image before it is parsed whole, naming the limit`, async () => {
      const object = { classTitle: 'dot', description: 'a description long enough to make the file pass a megabyte', tags: [], points: { exterior: [[1, 1], [2, 2]], interior: [] } };
      const annotation = { description: '', tags: [], size: { width: 32, height: 32 }, objects: Array.from({ length: MAX_OBJECTS_PER_ANNOTATION + 1 }, () => object) };
      const meta = { classes: [{ title: 'dot', shape: 'rectangle', color: '#FF0000' }], tags: [] };
      const files = await uploadProject(t, [
        { path: 'meta.json', content: Buffer.from(JSON.stringify(meta)), type: 'class' },
        { path: 'ds/img/a.png', content: await pngImage(32, 32), type: 'image' },
        { path: 'ds/ann/a.png.json', content: Buffer.from(JSON.stringify(annotation)), type: 'annotation' },
      ]);
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'supervisely too many' }, preset: 1, files } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'error');
      assert.match(JSON.stringify(task.meta), /ds\/img\/a\.png: annotation: objects: more than 10000 objects; the limit is 10000 objects per image/);
    });
  
    test('Pascal VOC: an XML larger than 64 MiB is not read, and its image is left out', async () => {
      const object = '<object><name>dot</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></object>';
      const xml = Buffer.from(`<annotation><filename>a.png</filename>${object}<!--${' '.repeat(64 * 1024 * 1024)}--></annotation>`);
      const files = await upload([{ path: 'Annotations/a.xml', content: xml, type: 'annotation', format: 'pascal_voc' }]);
      assert.match(await refusal(files, 4), /Annotations\/a\.xml: the file is larger than 64 MiB, the limit for an annotation file of one image; its image is not imported/);
    });

    test('YOLO: a label file larger than 64 MiB is not read, and its image is left out', async () => {
      const labels = Buffer.from(`0 0.5 0.5 0.1 0.1\n#${' '.repeat(64 * 1024 * 1024)}\n`);
      const files = await upload([
        { path: 'classes.txt', content: Buffer.from('dot\n'), type: 'annotation', format: 'yolo' },
        { path: 'labels/a.txt', content: labels, type: 'annotation', format: 'yolo' },
      ]);
      assert.match(await refusal(files, 5), /labels\/a\.txt: the file is larger than 64 MiB, the limit for an annotation file of one image; its image is not imported/);
    });

    test('COCO listed by category: each image gets its objects, gathered on disk under DATA_DIR/tmp and removed after', async () => {
      const second = await pngImage(32, 32, 1);
      const doc = {
        images: [
          { id: 1, file_name: 'a.png', width: 32, height: 32 },
          { id: 2, file_name: 'b.png', width: 32, height: 32 },
        ],
        annotations: [1, 2, 1, 2, 1].map((imageId, k) => ({ id: k + 1, image_id: imageId, category_id: 1, bbox: [k, k, 2, 2] })),
        categories: [{ id: 1, name: 'dot' }],
      };
      const files = await uploadProject(t, [
        { path: 'images/a.png', content: await pngImage(32, 32), type: 'image' },
        { path: 'images/b.png', content: second, type: 'image' },
        { path: 'annotations/instances_default.json', content: Buffer.from(JSON.stringify(doc)), type: 'annotation', format: 'coco' },
      ]);
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title: 'by category' }, preset: 3, files } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      const [dataset] = task.meta.datasets as { id: number }[];
      const records = json<{ data: { name: string; objects: { points: { exterior: number[][] } }[] } }[]>(
        await t.request({ method: 'GET', url: `/v1/annotations?projectId=${task.meta.project.id}&datasetIds=${dataset!.id}` }),
      );
      const corners = new Map(records.map((r) => [r.data.name, r.data.objects.map((o) => o.points.exterior[0]![0])]));
      assert.deepEqual(corners, new Map([['a.png', [0, 2, 4]], ['b.png', [1, 3]]]));
      assert.deepEqual(readdirSync(path.join(t.ctx.config.dataDir, 'tmp', 'imports')), []);
    });
  });
}
