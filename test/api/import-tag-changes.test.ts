// A figure tag renamed or deleted while an import runs: every image must end up naming, in its objects, exactly
// the tags it refers to. The change lands between two batches of the import, on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import type { TaskHandler, TaskRun } from '../../src/tasks/handler.ts';
import { importHandler } from '../../src/tasks/handlers/import.handler.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects } from '../helpers/dialects.ts';
import { type ProjectFile, uploadProject, waitForTask } from '../helpers/importing.ts';
import { pngImage } from '../helpers/multipart.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const meta = { classes: [{ title: 'car', shape: 'polygon', color: '#FF0000' }], tags_images: [], tags_objects: ['occluded'] };
const car = { classTitle: 'car', description: '', tags: ['occluded'], bitmap: null, points: { exterior: [[1, 1], [9, 1], [9, 9]], interior: [] } };
const asJson = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Six images of one dataset; the first one's annotation names a class the meta lacks, so it fails. */
async function project(): Promise<ProjectFile[]> {
  const files: ProjectFile[] = [{ path: 'meta.json', type: 'class', content: asJson(meta) }];
  for (const [i, name] of ['a', 'b', 'c', 'd', 'e', 'f'].entries()) {
    files.push({ path: `ds/img/${name}.png`, type: 'image', content: await pngImage(16, 16, 900 + i) });
    const objects = name === 'a' ? [{ ...car, classTitle: 'no such class' }] : [car];
    files.push({ path: `ds/ann/${name}.png.json`, type: 'annotation', content: asJson({ description: '', tags: [], size: { width: 16, height: 16 }, objects }) });
  }
  return files;
}

for (const dialect of dialects) {
  describe(`a tag renamed during an import on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let runner: TaskRunner;
    /** Runs once, at the first checkpoint: after the first batch committed, before the second. */
    let betweenBatches: (() => Promise<void>) | null = null;

    before(async () => {
      const defaults = loadConfig({});
      // Two images a batch; the failed first image makes the handler checkpoint after batch one.
      t = await startTestApp(dialect, { tasks: { ...defaults.tasks, importBatchSize: 2 } });
      const handler: TaskHandler = (run) =>
        importHandler(
          Object.assign(Object.create(run) as TaskRun, {
            async checkpoint(...args: Parameters<TaskRun['checkpoint']>) {
              const hook = betweenBatches;
              betweenBatches = null;
              await hook?.();
              return run.checkpoint(...args);
            },
          }),
        );
      const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
      runner = startTaskRunner(t.ctx, silent, { handlers: { import: handler }, pollMs: 20, leaseMs: 5000 });
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    /**
     * Imports the project with `change` made to its figure tag "occluded" between the first two
     * batches; answers, per image name, the titles its objects carry, having checked that they are
     * the titles of the tags the image refers to.
     */
    async function importAround(title: string, change: (projectId: number, tagId: number) => Promise<void>): Promise<Record<string, string[]>> {
      const files = await uploadProject(t, await project());
      let changed = false;
      betweenBatches = async () => {
        const listed = json<{ id: number; title: string; tags: { id: number; title: string }[] }[]>(await t.request({ method: 'GET', url: '/v1/projects' }));
        const mine = listed.find((p) => p.title === title)!;
        await change(mine.id, mine.tags.find((x) => x.title === 'occluded')!.id);
        changed = true;
      };
      const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title }, preset: 1, onConflict: 'ignore', files } });
      assert.equal(res.statusCode, 200, res.body);
      const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
      assert.equal(task.status, 'finished', JSON.stringify(task.meta));
      assert.ok(changed, 'the change ran between two batches');
      assert.equal(task.meta.imported, 5);
      assert.equal(task.meta.failed, 1);

      const projectId = task.meta.project.id as number;
      const records = json<{ imageId: number; data: { name: string; objects: { tags: string[] }[] } }[]>(
        await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}&perPage=100` }),
      );
      const refs = await t.ctx.db.kysely
        .selectFrom('object_tag_refs')
        .innerJoin('project_tags', 'project_tags.id', 'object_tag_refs.tag_id')
        .select(['object_tag_refs.image_id', 'project_tags.title'])
        .where('project_tags.project_id', '=', projectId)
        .execute();
      const named = Object.fromEntries(records.map((r) => [r.data.name, [...new Set(r.data.objects.flatMap((o) => o.tags))].sort()]));
      const referred = Object.fromEntries(
        records.map((r) => [r.data.name, refs.filter((ref) => ref.image_id === r.imageId).map((ref) => ref.title).sort()]),
      );
      assert.deepEqual(named, referred, "the titles in each image's objects are the titles of the tags it refers to");
      const [listed] = json<{ tags: { title: string }[] }[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${projectId}` }));
      // c to f name the title their files give, which the import created again as a tag of its own.
      assert.ok(listed!.tags.some((x) => x.title === 'occluded'));
      return named;
    }

    test('a rename: images committed before it carry the new title, later ones the title of their files', async () => {
      const named = await importAround('Renamed', async (projectId, tagId) => {
        const res = await t.request({ method: 'PUT', url: `/v1/projects/${projectId}/tags/${tagId}`, payload: { type: 'figures', title: 'hidden' } });
        assert.equal(res.statusCode, 200, res.body);
      });
      assert.deepEqual(named, { 'b.png': ['hidden'], 'c.png': ['occluded'], 'd.png': ['occluded'], 'e.png': ['occluded'], 'f.png': ['occluded'] });
    });

    test('a delete: images committed before it lose the title, later ones keep the title of their files', async () => {
      const named = await importAround('Deleted', async (projectId, tagId) => {
        const res = await t.request({ method: 'DELETE', url: `/v1/projects/${projectId}/tags/${tagId}?type=figures` });
        assert.equal(res.statusCode, 200, res.body);
      });
      assert.deepEqual(named, { 'b.png': [], 'c.png': ['occluded'], 'd.png': ['occluded'], 'e.png': ['occluded'], 'f.png': ['occluded'] });
    });
  });
}
