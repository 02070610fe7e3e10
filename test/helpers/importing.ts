// Drives the v1 import protocol the way a client does: upload, start the import, wait for the task.
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { after, before } from 'node:test';
import pino from 'pino';
import { importHandler } from '../../src/tasks/handlers/import.handler.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { multipartBody, type UploadPart } from './multipart.ts';
import type { DialectCase } from './dialects.ts';
import { type TestApp, json, startTestApp } from './test-app.ts';

export interface ProjectFile {
  path: string;
  content: Buffer;
  type: 'image' | 'annotation' | 'class';
  /** The format the upload declares for the file; `supervisely` unless given. */
  format?: string;
}

export interface TaskBody {
  id: number;
  type: string;
  status: string;
  size: string;
  meta: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  startedAt: string | null;
  finishedAt: string | null;
}

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

export function startImportRunner(t: TestApp): TaskRunner {
  return startTaskRunner(t.ctx, silent, { handlers: { import: importHandler }, pollMs: 20, leaseMs: 5000 });
}

/**
 * A test app on `dialect` with an import runner, for the tests of the enclosing suite: started before
 * them (and handed to `use`), stopped after.
 */
export function withImportRunner(dialect: DialectCase, use: (t: TestApp) => void): void {
  let t: TestApp | undefined;
  let runner: TaskRunner | undefined;
  before(async () => {
    t = await startTestApp(dialect);
    runner = startImportRunner(t);
    use(t);
  });
  after(async () => {
    await runner?.stop();
    await t?.close();
  });
}

/** Uploads the files (100 a request) and answers the `files` list of an import request. */
export async function uploadProject(t: TestApp, files: ProjectFile[], key?: string): Promise<({ hash: string; path: string } | { fileId: string; path: string })[]> {
  const refs: ({ hash: string; path: string } | { fileId: string; path: string })[] = [];
  for (let i = 0; i < files.length; i += 100) {
    const batch = files.slice(i, i + 100);
    const parts: UploadPart[] = batch.map((f, j) => ({
      key: `f${j}`,
      metadata: { id: f.path, type: f.type, format: f.format ?? 'supervisely' },
      content: f.content,
    }));
    const res = await t.request({ method: 'POST', url: '/v1/tasks/import/files', ...multipartBody(parts), ...(key ? { key } : {}) });
    assert.equal(res.statusCode, 200, res.body);
    const results = json<{ id: string; hash?: string; fileId?: string; errors: unknown[] }[]>(res);
    results.forEach((r, j) => {
      assert.deepEqual(r.errors, [], `upload of ${batch[j]!.path}`);
      refs.push(r.hash ? { hash: r.hash, path: batch[j]!.path } : { fileId: r.fileId!, path: batch[j]!.path });
    });
  }
  return refs;
}

export async function waitForTask(t: TestApp, taskId: number, statuses = ['finished', 'error', 'stopped'], timeoutMs = 20_000, key?: string): Promise<TaskBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [task] = json<TaskBody[]>(await t.request({ method: 'GET', url: `/v1/tasks?id=${taskId}`, ...(key ? { key } : {}) }));
    assert.ok(task, `task ${taskId} is listed`);
    if (statuses.includes(task.status)) return task;
    if (Date.now() > deadline) assert.fail(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface ImportedObject {
  classTitle: string;
  tags: string[];
  bitmap: { origin: number[]; data: string } | null;
  points: { exterior: number[][]; interior: number[][][] };
}

export interface ImportedImage {
  name: string;
  size: { width: number; height: number };
  objects: ImportedObject[];
}

export interface Imported {
  task: TaskBody;
  /** The project's classes: title → shape. */
  classes: Map<string, string>;
  /** Each dataset's annotation records, by dataset title, in the order the task lists them. */
  datasets: Map<string, ImportedImage[]>;
  warnings: { path: string; message: string }[];
}

/**
 * Uploads the files, imports them into a new project with `preset`, waits until the task has
 * finished and reads back what a user sees: the project's classes and each dataset's annotations.
 */
export async function importAndRead(t: TestApp, files: ProjectFile[], preset: number, title = `preset ${preset}`): Promise<Imported> {
  const refs = await uploadProject(t, files);
  const res = await t.request({ method: 'POST', url: '/v1/tasks/import', payload: { project: { id: null, title }, preset, files: refs } });
  assert.equal(res.statusCode, 200, res.body);
  const task = await waitForTask(t, json<{ taskId: number }>(res).taskId);
  assert.equal(task.status, 'finished', JSON.stringify(task.meta));
  const projectId = task.meta.project.id as number;
  const [project] = json<{ classes: { title: string; shape: string }[] }[]>(await t.request({ method: 'GET', url: `/v1/projects?projectId=${projectId}` }));
  const datasets = new Map<string, ImportedImage[]>();
  for (const d of task.meta.datasets as { id: number; title: string }[]) {
    const records = json<{ data: ImportedImage }[]>(await t.request({ method: 'GET', url: `/v1/annotations?projectId=${projectId}&datasetIds=${d.id}` }));
    datasets.set(d.title, records.map((r) => r.data));
  }
  return { task, classes: new Map(project!.classes.map((c) => [c.title, c.shape])), datasets, warnings: (task.meta.warnings ?? []) as Imported['warnings'] };
}
