// A Supervisely import into a project that already has its classes and tags: meta.json is optional
// there (the project's classes stand), merged in when given; a new project still needs one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { newProject, newTag } from '../helpers/factories.ts';
import { type ProjectFile, type TaskBody, withImportRunner, uploadProject, waitForTask } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json } from '../helpers/test-app.ts';

interface ProjectBody {
  id: number;
  classes: { id: number; title: string; shape: string; color: string }[];
  tags: { id: number; title: string }[];
}

interface AnnotationBody {
  imageId: number;
  data: { name: string; tags: string[]; objects: { classTitle: string; tags: string[]; points: { exterior: number[][] } }[] };
}

const asJson = (value: unknown) => Buffer.from(JSON.stringify(value));
const car = { classTitle: 'car', description: '', tags: ['occluded'], bitmap: null, points: { exterior: [[1, 1], [9, 1], [9, 9]], interior: [] } };
const sign = { classTitle: 'sign', description: '', tags: [], bitmap: null, points: { exterior: [[2, 2], [6, 7]], interior: [] } };

let seed = 5000;

/** An image of `dataset` with an annotation holding `objects` (none: the image alone). */
async function annotatedImage(dataset: string, name: string, objects?: object[], tags: string[] = []): Promise<ProjectFile[]> {
  const image: ProjectFile = { path: `${dataset}/img/${name}`, type: 'image', content: await pngImage(16, 16, (seed += 1)) };
  if (!objects) return [image];
  const annotation = { description: '', tags, size: { width: 16, height: 16 }, objects };
  return [image, { path: `${dataset}/ann/${name}.json`, type: 'annotation', content: asJson(annotation) }];
}

const metaFile = (meta: object): ProjectFile => ({ path: 'meta.json', type: 'class', content: asJson(meta) });

for (const dialect of dialects) {
  describe(`Supervisely import into an existing project on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    withImportRunner(dialect, (app) => (t = app));

    /** A project of team alpha with the classes car (polygon) and sign (rectangle) and two tags. */
    async function existingProject(): Promise<ProjectBody> {
      const id = await newProject(t.ctx, { team: 'alpha', title: `existing ${seed}`, classes: [{ title: 'car', shape: 'polygon' }, { title: 'sign', shape: 'rectangle' }] });
      await newTag(t.ctx, id, { scope: 'images', title: 'daytime' });
      await newTag(t.ctx, id, { scope: 'figures', title: 'occluded' });
      return readProject(id);
    }

    async function readProject(id: number): Promise<ProjectBody> {
      const [project] = json<ProjectBody[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${id}` }));
      assert.ok(project, `project ${id} is listed`);
      return project;
    }

    const annotations = async (projectId: number) =>
      json<AnnotationBody[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}` })).map((r) => r.data);

    async function importInto(projectId: number | null, files: ProjectFile[], preset = 1): Promise<{ statusCode: number; body: string; task?: TaskBody }> {
      const project = projectId === null ? { id: null, title: 'fresh' } : { id: projectId };
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project, preset, files: await uploadProject(t, files) } });
      if (res.statusCode !== 200) return { statusCode: res.statusCode, body: res.body };
      return { statusCode: 200, body: res.body, task: await waitForTask(t, json<{ taskId: number }>(res).taskId) };
    }

    const byTitle = (project: ProjectBody) => project.classes.map((c) => [c.id, c.title, c.shape]);

    for (const preset of [1, 0]) {
      test(`preset ${preset}: images and annotations without meta.json land on the project's own classes and tags`, async () => {
        const project = await existingProject();
        const files = [
          ...(await annotatedImage('second', 'a.png', [car, sign], ['daytime'])),
          ...(await annotatedImage('second', 'b.png', [])),
          ...(await annotatedImage('second', 'c.png')),
        ];
        const { statusCode, body, task } = await importInto(project.id, files, preset);
        assert.equal(statusCode, 200, body);
        assert.equal(task!.status, 'finished', JSON.stringify(task!.meta));
        assert.equal(task!.meta.format, 'supervisely');
        assert.deepEqual([task!.meta.imported, task!.meta.failed], [3, 0]);

        const after = await readProject(project.id);
        assert.deepEqual(byTitle(after), byTitle(project), 'the classes stand as they were, ids and all');
        assert.deepEqual(after.tags, project.tags, 'no tag is added');
        const records = await annotations(project.id);
        assert.deepEqual(records.map((r) => r.name), ['a.png', 'b.png', 'c.png']);
        const a = records[0]!;
        assert.deepEqual(a.objects.map((o) => o.classTitle), ['car', 'sign']);
        assert.deepEqual(a.objects[0]!.tags, ['occluded']);
        // A rectangle is checked against the project's shape and stored as [[left, top], [right, bottom]].
        assert.deepEqual(a.objects[1]!.points.exterior, [[2, 2], [6, 7]]);
        assert.deepEqual(a.tags, ['daytime']);
      });
    }

    test('an object of a class the project lacks fails its image, as it does against a given meta.json', async () => {
      const project = await existingProject();
      const truck = { ...car, classTitle: 'truck' };
      const files = async (dataset: string) => [...(await annotatedImage(dataset, 'good.png', [car])), ...(await annotatedImage(dataset, 'bad.png', [truck]))];
      const withMeta = await importInto(project.id, [metaFile({ classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }] }), ...(await files('given'))]);
      const withoutMeta = await importInto(project.id, await files('none'));
      for (const [dataset, { task }] of [['given', withMeta], ['none', withoutMeta]] as const) {
        assert.equal(task!.status, 'finished', JSON.stringify(task!.meta));
        assert.deepEqual([task!.meta.imported, task!.meta.failed], [1, 1]);
        assert.equal(task!.meta.warnings[0].path, `${dataset}/img/bad.png`);
      }
      assert.equal(withoutMeta.task!.meta.warnings[0].message, withMeta.task!.meta.warnings[0].message);
      assert.match(withoutMeta.task!.meta.warnings[0].message, /class "truck"/);
      assert.deepEqual(byTitle(await readProject(project.id)), byTitle(project));

      // Nothing but such images: the task fails, as it does with a meta.
      const failed = await importInto(project.id, await annotatedImage('ds', 'worse.png', [truck]));
      assert.equal(failed.task!.status, 'error');
      assert.equal(failed.task!.meta.error.code, 'IMPORT_FAILED');
      assert.match(failed.task!.meta.error.message, /worse\.png.*class "truck"/);
    });

    test('a given meta.json is merged in: its new classes and tags join the project’s', async () => {
      const project = await existingProject();
      const meta = {
        classes: [
          { title: 'car', shape: 'polygon', color: '#00FF00' },
          { title: 'bus', shape: 'rectangle', color: '#0000FF' },
        ],
        tags_images: ['night'],
        tags_objects: [],
      };
      const bus = { ...sign, classTitle: 'bus' };
      const { task } = await importInto(project.id, [metaFile(meta), ...(await annotatedImage('ds', 'a.png', [car, bus], ['night']))]);
      assert.equal(task!.status, 'finished', JSON.stringify(task!.meta));
      const after = await readProject(project.id);
      assert.deepEqual(after.classes.slice(0, 2), project.classes, 'the project’s classes keep their ids and colours');
      assert.deepEqual(after.classes.slice(2).map((c) => [c.title, c.shape, c.color]), [['bus', 'rectangle', '#0000FF']]);
      assert.deepEqual(after.tags.map((x) => x.title).sort(), ['daytime', 'night', 'occluded']);
      assert.deepEqual((await annotations(project.id))[0]!.objects.map((o) => o.classTitle), ['car', 'bus']);
    });

    test('a meta.json class whose title the project has with another shape is a 400 naming it; nothing is created', async () => {
      const project = await existingProject();
      const tasksBefore = json<unknown[]>(await t.request({ method: 'GET', url: '/v1/tasks' })).length;
      const meta = { classes: [{ title: 'car', shape: 'rectangle', color: '#FF0000' }, { title: 'bus', shape: 'rectangle', color: '#0000FF' }] };
      const res = await importInto(project.id, [metaFile(meta), ...(await annotatedImage('new-dataset', 'a.png', [sign]))]);
      assert.equal(res.statusCode, 400, res.body);
      const body = JSON.parse(res.body) as { error: string; details: { message: string; classes: string[] } };
      assert.equal(body.error, 'VALIDATION');
      assert.match(body.details.message, /\bcar\b.*polygon.*rectangle/);
      assert.deepEqual(body.details.classes.length, 1);
      const after = await readProject(project.id);
      assert.deepEqual(byTitle(after), byTitle(project), 'bus is not added either');
      assert.deepEqual(json<unknown[]>(await t.request({ method: 'GET', url: `/v1/datasets?projectId=${project.id}` })), []);
      assert.equal(json<unknown[]>(await t.request({ method: 'GET', url: '/v1/tasks' })).length, tasksBefore);
    });

    test('a new project still needs meta.json: 400, with preset 1 and with preset 0 and annotation files', async () => {
      const projectsBefore = json<unknown[]>(await t.request({ method: 'GET', url: '/v1/projects' })).length;
      const files = await annotatedImage('ds', 'a.png', [car]);
      for (const preset of [1, 0]) {
        const res = await importInto(null, files, preset);
        assert.equal(res.statusCode, 400, `preset ${preset}: ${res.body}`);
        assert.deepEqual(JSON.parse(res.body), { error: 'VALIDATION', details: { message: 'no meta.json or classes.json at the root of the project' } });
      }
      assert.equal(json<unknown[]>(await t.request({ method: 'GET', url: '/v1/projects' })).length, projectsBefore);
    });
  });
}
