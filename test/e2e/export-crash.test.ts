// A worker process is killed with SIGKILL in the middle of an export; another worker takes the task
// over. The task ends finished with a whole archive (or in error), there is never a partial archive
// under its `meta.path`, and the local store keeps no temporary file of the dead worker's attempt.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { createContext } from '../../src/context.ts';
import { DEFAULT_TEAM } from '../../src/services/keys.service.ts';
import { listFiles } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { type SeededImage, seedProject } from '../helpers/export-seed.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

const KEY = 'ak_export-crash-test-key-0123456789ab';
const IMAGES = 6000;

function envOf(config: Config): Record<string, string> {
  return {
    DATA_DIR: config.dataDir,
    ANNOSTORE_API_KEY: KEY,
    // The dead worker's task is taken over once its lease runs out: keep it short here.
    TASK_LEASE_MS: '1500',
    TASK_POLL_MS: '50',
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl, DATABASE_SCHEMA: config.databaseSchema! } : {}),
  };
}

interface ExportAnswer {
  task: { id: number; status: string; meta: { progress?: { done: number; total: number }; path?: { bucket: string; objectName: string }; error?: unknown } };
  archive: { size: number } | null;
}

async function call(server: ServerProcess, method: string, url: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${url}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
}

/** Info-ZIP's test of every entry's CRC, and the entry names; throws when the file is not a whole zip. */
function zipEntries(file: string): string[] {
  execFileSync('unzip', ['-tq', file]);
  return execFileSync('unzip', ['-Z1', file], { maxBuffer: 16 * 1024 * 1024 }).toString().split('\n').filter(Boolean).sort();
}

for (const dialect of dialects) {
  describe(`an export whose worker is killed on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let api: ServerProcess | undefined;
    let worker: ServerProcess | undefined;
    let projectId: number;
    let images: SeededImage[];

    before(async () => {
      config = dialect.freshConfig();
      const ctx = await createContext(config);
      try {
        // 6,000 images of 8 KiB from 600 distinct blobs: about 50 MB of archive, a few seconds of export.
        ({ projectId, images } = await seedProject(ctx, { team: DEFAULT_TEAM, title: 'Crashy export', images: IMAGES, blobs: 600, blobBytes: 8192, datasets: 3 }));
      } finally {
        await ctx.close();
      }
    });
    after(async () => {
      await worker?.kill('SIGKILL');
      await api?.kill('SIGKILL');
      await dialect.cleanup(config);
    });

    test('SIGKILL mid-export: finished with a whole archive or error, never a half one under meta.path', { timeout: 180_000 }, async () => {
      api = await startServerProcess(envOf(config), ['serve', '--no-worker']);
      worker = await startServerProcess(envOf(config), ['worker']);
      const res = await call(api, 'POST', '/v2/exports', { projectId, format: 'supervisely', options: { includeImages: true } });
      const body = await res.text();
      assert.equal(res.status, 201, body);
      const id = (JSON.parse(body) as ExportAnswer).task.id;
      const describe = async () => {
        const answer = await call(api!, 'GET', `/v2/exports/${id}`);
        assert.equal(answer.status, 200);
        return (await answer.json()) as ExportAnswer;
      };
      const first = await describe();
      const objectName = first.task.meta.path!.objectName;
      assert.equal(first.task.meta.path!.bucket, 'local');
      const archivePath = path.join(config.dataDir, 'blobs', 'archives', ...objectName.split('/'));
      /** Whatever is under meta.path must be a whole archive of the project; answers whether there is one. */
      const checkPublished = (): boolean => {
        if (!fs.existsSync(archivePath)) return false;
        zipEntries(archivePath);
        return true;
      };

      // Kill once the export is under way: some pages written, not all.
      const until = Date.now() + 60_000;
      for (;;) {
        const { task } = await describe();
        const progress = task.meta.progress;
        assert.notEqual(task.status, 'finished', 'the export finished before the test could kill its worker: make the project larger');
        if (task.status === 'started' && progress && progress.done > 0 && progress.done < progress.total) break;
        assert.ok(Date.now() < until, `export did not get under way: ${JSON.stringify(task)}`);
        assert.equal(checkPublished(), false, 'no archive while the export runs');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await worker.kill('SIGKILL');
      worker = undefined;
      // The dead worker wrote part of an archive: none of it is under meta.path, nor downloadable.
      const leftovers = listFiles(path.join(config.dataDir, 'blobs', 'tmp'));
      assert.ok(leftovers.length > 0, 'the killed worker was writing an archive');
      for (let i = 0; i < 10; i += 1) {
        assert.equal(checkPublished(), false, 'no archive under meta.path while the worker is dead');
        const download = await call(api, 'GET', `/v2/exports/${id}/archive`);
        assert.equal(download.status, 409, 'the archive of an unfinished export is not served');
        await download.arrayBuffer();
        assert.equal((await describe()).archive, null);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      worker = await startServerProcess(envOf(config), ['worker']);
      const deadline = Date.now() + 120_000;
      let state = await describe();
      while (!['finished', 'error', 'stopped'].includes(state.task.status)) {
        assert.ok(Date.now() < deadline, `export still ${state.task.status}`);
        checkPublished();
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = await describe();
      }
      assert.notEqual(state.task.status, 'stopped');
      if (state.task.status === 'error') {
        // An export may end in error; then there is no archive at all.
        assert.equal(checkPublished(), false);
      } else {
        assert.deepEqual(state.task.meta.progress, { done: IMAGES, total: IMAGES });
        const download = await call(api, 'GET', `/v2/exports/${id}/archive`);
        assert.equal(download.status, 200);
        const bytes = Buffer.from(await download.arrayBuffer());
        assert.equal(bytes.length, state.archive!.size);
        assert.ok(bytes.equals(fs.readFileSync(archivePath)), 'the download is the archive under meta.path');
        const file = path.join(path.dirname(config.dataDir), `${path.basename(config.dataDir)}-download.zip`);
        fs.writeFileSync(file, bytes);
        try {
          const expected = ['meta.json', ...images.flatMap((i) => [`${i.dataset}/img/${i.name}`, `${i.dataset}/ann/${i.name}.json`])].sort();
          assert.deepEqual(zipEntries(file), expected);
        } finally {
          fs.rmSync(file);
        }
      }
      // Nothing of either attempt is left where the store and the writers keep their temporary files.
      await worker.kill('SIGTERM');
      worker = undefined;
      assert.deepEqual(listFiles(path.join(config.dataDir, 'blobs', 'tmp')), [], 'temporary files of the store');
      const spool = path.join(config.dataDir, 'tmp', 'exports');
      assert.deepEqual(fs.existsSync(spool) ? listFiles(spool) : [], [], 'spool files');
    });
  });
}
