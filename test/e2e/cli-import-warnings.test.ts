// `annostore import` prints what the import warned about: a COCO folder whose annotation file names 6
// images of which 4 are missing imports the other 2 and says, file by file, what it left out.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ImportSummary } from '../../src/client/import-folder.ts';
import type { Config } from '../../src/config.ts';
import { COCO_NAMES, COCO_PRESENT, cocoFolderMissingImages } from '../helpers/coco-missing.ts';
import { dialects } from '../helpers/dialects.ts';
import { type ServerProcess, runImport, startServerProcess } from '../helpers/server-process.ts';

const KEY = 'ak_cli-import-warnings-key-0123456';
const [sqlite] = dialects;
const MISSING = COCO_NAMES.filter((n) => !COCO_PRESENT.includes(n));

describe('annostore import prints the import’s warnings', () => {
  let config: Config;
  let server: ServerProcess;
  let dir: string;
  before(async () => {
    config = sqlite!.freshConfig();
    server = await startServerProcess({ DATA_DIR: config.dataDir, ANNOSTORE_API_KEY: KEY, TASK_POLL_MS: '50' });
    dir = await cocoFolderMissingImages('harbour');
  });
  after(async () => {
    await server?.kill();
    await sqlite!.cleanup(config);
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  test('a COCO folder with 4 of its 6 images missing: finished, and each missing image named', { timeout: 60_000 }, async () => {
    const run = await runImport([dir, '--url', server.url, '--key', KEY]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /import task \d+ finished: project \d+, 2 images uploaded/);
    // One warning of the annotation file, naming the images it left out.
    assert.match(run.stdout, /\n1 warning:\n {2}instances\.json: 4 of its 6 images are not among the uploaded files and are not imported \(c\.png, d\.png, e\.png, f\.png\)\n$/);

    const json = await runImport([dir, '--url', server.url, '--key', KEY, '--json', '--project', 'harbour-2']);
    assert.equal(json.code, 0, json.stderr);
    const summary = JSON.parse(json.stdout.trim().split('\n').pop()!) as ImportSummary;
    assert.deepEqual([summary.warnings.length, summary.moreWarnings, summary.warnings[0]!.path], [1, 0, 'instances.json']);
    for (const name of MISSING) assert.ok(summary.warnings[0]!.message.includes(name), name);
  });
});
