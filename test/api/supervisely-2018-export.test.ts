// The 2018 Supervisely layout through the real app on both databases: POST /v2/exports with
// `layout: "2018"` (supervisely and masks), and DTL graphs whose save or save_masks layer asks for
// it. Every file of each archive is checked against the 2018 SDK's reading rules
// (check2018Project), and the archive imported again gives the same objects; only tag values are
// gone, as a notice says. A layout that does not exist is a 400 before any task.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { SuperviselyWriter, TAG_VALUES_LEFT_OUT } from '../../src/formats/supervisely/writer.ts';
import type { ExportProject, ExportRecord, WriterNotice } from '../../src/formats/writer.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { listFiles, readJson, scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { exportedFolder, importFolder, readExport } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import type { TaskBody } from '../helpers/importing.ts';
import { check2018Project } from '../helpers/supervisely-2018-rules.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

type Project = { project: ExportProject; records: ExportRecord[] };

/** What a 2018 archive keeps of a project: every object and tag, tags without values; a.png, which shares a.jpg's stem, renamed. */
function as2018(p: Project): Project {
  const noValues = <T extends { tags: { name: string }[] }>(x: T): T => ({ ...x, tags: x.tags.map((t) => ({ name: t.name, value: null })) });
  return {
    project: { ...p.project, tags: p.project.tags.map((t) => ({ ...t, valueType: 'none' })) },
    records: p.records.map((r) => ({ ...noValues(r), name: r.name === 'a.png' ? 'a_1.png' : r.name, hash: r.hash, objects: r.objects.map(noValues) })),
  };
}

const keyOf = (r: ExportRecord) => `${r.dataset}/${r.name}`;
const byKey = (records: ExportRecord[]) => [...records].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));

for (const dialect of dialects) {
  describe(`the 2018 Supervisely layout on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    let projectId: number;
    let first: Project;

    before(async () => {
      t = await startTestApp(dialect);
      runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
      const records = sampleRecords();
      const dir = scratchDir('sly-2018-source');
      const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: true });
      await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
      ({ projectId } = await importFolder(t, dir, 'supervisely'));
      first = await readExport(t, projectId);
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    /** Starts the export, waits for it to finish, downloads and unpacks the archive. */
    const exported = (payload: object) => exportedFolder(t, payload, 'sly-2018-export');

    /** The project an archive's folder imports as. */
    async function imported(dir: string): Promise<Project> {
      const again = await importFolder(t, dir, 'supervisely', (p) => !/^(meta\.json|[^/]+\/(img|ann)\/[^/]+)$/.test(p));
      return readExport(t, again.projectId);
    }

    /** `dataset`: the name each dataset has in the archive (a DTL graph names them `<project>__<dataset>`). */
    function assertSameObjects(second: Project, dataset = (d: string) => d): void {
      const expected = as2018(first);
      assert.deepEqual(byKey(second.records), byKey(expected.records.map((r) => ({ ...r, dataset: dataset(r.dataset) }))));
      assert.deepEqual(second.project.classes, expected.project.classes);
      assert.deepEqual(second.project.tags, expected.project.tags);
    }

    const notice = (task: TaskBody, message: string) => (task.meta.notices as WriterNotice[]).find((n) => n.message === message);

    test('supervisely with layout 2018: every file keeps the 2018 rules, and imported again it is the same project but tag values', async () => {
      const { dir, task } = await exported({ projectId, format: 'supervisely', options: { layout: '2018' } });
      assert.deepEqual(check2018Project(dir), []);
      assert.deepEqual(listFiles(dir).filter((f) => f.startsWith('train/')), ['train/ann/a.json', 'train/ann/a_1.json', 'train/img/a.jpg', 'train/img/a_1.png']);
      assert.deepEqual(readJson(dir, 'meta.json'), { classes: first.project.classes, tags_images: ['daytime', 'weather'], tags_objects: ['occluded', 'score'] });
      assert.deepEqual(notice(task, TAG_VALUES_LEFT_OUT), { message: TAG_VALUES_LEFT_OUT, count: 2, first: 'train/a.jpg' });
      const save = (task.meta.config as { action: string; settings: Record<string, unknown> }[]).at(-1)!;
      assert.equal(save.action, 'save');
      assert.equal(save.settings.layout, '2018');
      assertSameObjects(await imported(dir));
    });

    test('masks with layout 2018: the project beside the masks keeps the rules; masks share the annotations\' stems', async () => {
      const { dir } = await exported({ projectId, format: 'masks', options: { layout: '2018', human: false } });
      assert.deepEqual(check2018Project(dir), []);
      const files = listFiles(dir);
      assert.deepEqual(files.filter((f) => f.startsWith('train/') && !f.includes('/img/')), ['train/ann/a.json', 'train/ann/a_1.json', 'train/masks_machine/a.png', 'train/masks_machine/a_1.png']);
      assertSameObjects(await imported(dir));
    });

    test('without layout the archive is the current layout, which the 2018 rules refuse', async () => {
      const { dir } = await exported({ projectId, format: 'supervisely', options: { includeImages: false } });
      assert.ok(listFiles(dir).includes('val/ann/c.jpg.json'));
      assert.deepEqual(readJson<{ tags: unknown }>(dir, 'val/ann/c.jpg.json').tags, [{ name: 'weather', value: 'rain' }]);
      assert.ok(check2018Project(dir).includes('meta.json: no "tags_images" (KeyError in ProjectMeta)'));
    });

    describe('a DTL graph', () => {
      let title: string;
      before(() => {
        title = first.project.title;
      });
      const graph = (action: string, settings: Record<string, unknown>) => [
        { action: 'data', src: [`${title}/*`], dst: '$data', settings: { classes_mapping: 'default' } },
        { action, src: ['$data'], dst: 'old-sdk', settings },
      ];
      /** A graph's output datasets are named `<project>__<dataset>`, as Supervisely's were. */
      const named = (d: string) => `${title}__${d}`;

      test('save {"layout": "2018", "visualize": true}: the 2018 rules hold, the overlay is named by the stem, and the objects come back', async () => {
        const { dir, task } = await exported({ config: graph('save', { layout: '2018', visualize: true }) });
        assert.deepEqual(check2018Project(dir), []);
        assert.ok(listFiles(dir).includes(`${named('train')}/visualize/a_1.png`), listFiles(dir).join(' '));
        assert.equal(notice(task, TAG_VALUES_LEFT_OUT)?.count, 2);
        assertSameObjects(await imported(dir), named);
      });

      test('save_masks {"layout": "2018"}: the 2018 rules hold beside the masks', async () => {
        const { dir } = await exported({ config: graph('save_masks', { layout: '2018', masks_human: false }) });
        assert.deepEqual(check2018Project(dir), []);
        assert.ok(listFiles(dir).includes(`${named('val')}/masks_machine/c.png`));
        assertSameObjects(await imported(dir), named);
      });

      test('a layout that does not exist is a 400 naming the setting, in a graph and in the options', async () => {
        for (const action of ['save', 'save_masks']) {
          const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { config: graph(action, { layout: '2017' }) } });
          assert.equal(res.statusCode, 400, res.body);
          const problem = json<{ code: string; layer: number; errors?: { pointer: string }[] }>(res);
          assert.equal(problem.layer, 1);
          assert.equal(problem.errors?.[0]?.pointer, '/config/1/settings/layout', res.body);
        }
        for (const format of ['supervisely', 'masks']) {
          const res = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format, options: { layout: '2017' } } });
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(json<{ errors?: { pointer: string }[] }>(res).errors?.[0]?.pointer, '/options/layout');
        }
        const coco = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'coco', options: { layout: '2018' } } });
        assert.equal(coco.statusCode, 400, 'only the Supervisely formats take a layout');
      });
    });
  });
}
