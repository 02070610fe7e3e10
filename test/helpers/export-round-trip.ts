// The real app on both sides of a writer: a folder imported with a format's preset, and an imported
// project read back as the records and project an export hands to a writer.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { CanonicalTag, ClassShape, TagScope, TagValueType } from '../../src/formats/canonical.ts';
import { isImageName } from '../../src/formats/supervisely/index.ts';
import type { ExportObject, ExportProject, ExportRecord } from '../../src/formats/writer.ts';
import { type TaskBody, waitForTask } from './importing.ts';
import { multipartBody } from './multipart.ts';
import { type TestApp, json } from './test-app.ts';
import { listFiles, scratchDir } from './archive-folder.ts';

export type ImportFormat = 'supervisely' | 'coco' | 'yolo' | 'pascal_voc';

/**
 * Starts `POST /v2/exports` with `payload`, waits for the task (which must finish), downloads the
 * archive and unpacks it into a scratch folder named by `label` (Info-ZIP checks every CRC).
 */
export async function exportedFolder(t: TestApp, payload: object, label: string): Promise<{ dir: string; task: TaskBody }> {
  const res = await t.request({ method: 'POST', url: '/v2/exports', payload });
  assert.equal(res.statusCode, 201, res.body);
  const id = json<{ task: TaskBody }>(res).task.id;
  const deadline = Date.now() + 60_000;
  let task: TaskBody;
  for (;;) {
    task = json<{ task: TaskBody }>(await t.request({ method: 'GET', url: `/v2/exports/${id}` })).task;
    if (['finished', 'error', 'stopped'].includes(task.status)) break;
    assert.ok(Date.now() < deadline, `export still ${task.status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(task.status, 'finished', JSON.stringify(task.meta));
  const download = await t.request({ method: 'GET', url: `/v2/exports/${id}/archive` });
  assert.equal(download.statusCode, 200);
  const dir = scratchDir(label);
  const file = `${dir}.zip`;
  fs.writeFileSync(file, download.rawPayload);
  try {
    execFileSync('unzip', ['-q', file, '-d', dir]);
  } finally {
    fs.rmSync(file);
  }
  return { dir, task };
}
const PRESET: Record<ImportFormat, number> = { supervisely: 1, coco: 3, pascal_voc: 4, yolo: 5 };

/**
 * Uploads every file under `dir` (but those `skip` names) as a client would, imports them into a new
 * project with the format's preset and waits for the task, which must finish.
 */
export async function importFolder(t: TestApp, dir: string, format: ImportFormat, skip: (rel: string) => boolean = () => false): Promise<{ projectId: number; task: TaskBody }> {
  const files = listFiles(dir).filter((p) => !skip(p));
  const refs: ({ path: string; hash: string } | { path: string; fileId: string })[] = [];
  for (let i = 0; i < files.length; i += 100) {
    const batch = files.slice(i, i + 100);
    const parts = batch.map((p, j) => {
      const type = isImageName(p) && !/(^|\/)Segmentation(Object|Class)\//.test(p) ? 'image' : p === 'meta.json' ? 'class' : 'annotation';
      return { key: `f${j}`, metadata: { id: p, type, format }, content: fs.readFileSync(path.join(dir, ...p.split('/'))) };
    });
    const res = await t.request({ method: 'POST', url: '/v1/tasks/import/files', ...multipartBody(parts) });
    assert.equal(res.statusCode, 200, res.body);
    json<{ hash?: string; fileId?: string; errors: unknown[] }[]>(res).forEach((r, j) => {
      assert.deepEqual(r.errors, [], batch[j]);
      refs.push(r.hash ? { path: batch[j]!, hash: r.hash } : { path: batch[j]!, fileId: r.fileId! });
    });
  }
  const title = `${format} ${path.basename(dir)} ${Date.now()}`;
  const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title }, preset: PRESET[format], files: refs } });
  assert.equal(res.statusCode, 200, res.body);
  const task = await waitForTask(t, json<{ taskId: number }>(res).taskId, undefined, 60_000);
  assert.equal(task.status, 'finished', JSON.stringify(task.meta));
  return { projectId: task.meta.project.id as number, task };
}

/**
 * A project as an export hands it to a writer: classes and tags in id order, datasets in id order,
 * each dataset's images in id order. Object tags are read by title, without the values kept in
 * images.object_tag_values; a project tag's value type is what its image values are (numbers,
 * strings) or `none`.
 */
export async function readExport(t: TestApp, projectId: number): Promise<{ project: ExportProject; records: ExportRecord[] }> {
  const db = t.ctx.db.kysely;
  const { title } = await db.selectFrom('projects').select('title').where('id', '=', projectId).executeTakeFirstOrThrow();
  const classes = await db.selectFrom('classes').select(['title', 'shape', 'color']).where('project_id', '=', projectId).orderBy('id').execute();
  const tagRows = await db.selectFrom('project_tags').select(['id', 'title', 'scope']).where('project_id', '=', projectId).orderBy('id').execute();
  const images = await db
    .selectFrom('images')
    .innerJoin('datasets', 'datasets.id', 'images.dataset_id')
    .select(['images.id', 'datasets.title as dataset', 'images.name', 'images.hash', 'images.width', 'images.height', 'images.description', 'images.objects_json'])
    .where('images.project_id', '=', projectId)
    .orderBy('datasets.id')
    .orderBy('images.id')
    .execute();
  const imageTags = await db
    .selectFrom('image_tags')
    .innerJoin('project_tags', 'project_tags.id', 'image_tags.tag_id')
    .select(['image_tags.image_id', 'project_tags.title', 'image_tags.value'])
    .where('project_tags.project_id', '=', projectId)
    .orderBy('image_tags.tag_id')
    .execute();
  const tagsOf = new Map<number, CanonicalTag[]>();
  const valueKinds = new Map<string, Set<string>>();
  for (const row of imageTags) {
    const value = row.value === null ? null : (JSON.parse(row.value) as number | string);
    tagsOf.set(row.image_id, [...(tagsOf.get(row.image_id) ?? []), { name: row.title, value }]);
    if (value !== null) valueKinds.set(row.title, (valueKinds.get(row.title) ?? new Set()).add(typeof value));
  }
  const valueType = (title: string): TagValueType => {
    const kinds = valueKinds.get(title);
    return kinds?.has('string') ? 'any_string' : kinds?.has('number') ? 'any_number' : 'none';
  };
  const records = images.map((i): ExportRecord => ({
    dataset: i.dataset,
    name: i.name,
    width: i.width,
    height: i.height,
    hash: i.hash,
    description: i.description,
    tags: tagsOf.get(i.id) ?? [],
    objects: (JSON.parse(i.objects_json) as (Omit<ExportObject, 'tags'> & { tags: string[] })[]).map((o) => ({ ...o, tags: o.tags.map((name) => ({ name, value: null })) })),
  }));
  return {
    project: {
      title,
      classes: classes.map((c) => ({ title: c.title, shape: c.shape as ClassShape, color: c.color })),
      tags: tagRows.map((r) => ({ title: r.title, scope: r.scope as TagScope, valueType: valueType(r.title) })),
    },
    records,
  };
}

/** The stored bytes of an image, by its hash. */
export const storedImage = (t: TestApp) => (hash: string) => t.ctx.blobs.readBytes(hash);
