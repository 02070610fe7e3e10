// Drives the v1 import protocol the way a client does: upload, start the import, wait for the task.
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { importHandler } from '../../src/tasks/handlers/import.handler.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { multipartBody, type UploadPart } from './multipart.ts';
import { type TestApp, json } from './test-app.ts';

export interface ProjectFile {
  path: string;
  content: Buffer;
  type: 'image' | 'annotation' | 'class';
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

/** Uploads the files (100 a request) and answers the `files` list of an import request. */
export async function uploadProject(t: TestApp, files: ProjectFile[], key?: string): Promise<({ hash: string; path: string } | { fileId: string; path: string })[]> {
  const refs: ({ hash: string; path: string } | { fileId: string; path: string })[] = [];
  for (let i = 0; i < files.length; i += 100) {
    const batch = files.slice(i, i + 100);
    const parts: UploadPart[] = batch.map((f, j) => ({
      key: `f${j}`,
      metadata: { id: f.path, type: f.type, format: 'supervisely' },
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
