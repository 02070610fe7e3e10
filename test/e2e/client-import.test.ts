// `annostore import DIR` as a user runs it, against a real server process: a Supervisely folder lands
// as the files say, a second run sends no image, an interrupted run resumes with only what is missing,
// and each way of failing has its exit code and a message that says what to do.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { AnnostoreClient } from '../../src/client/index.ts';
import type { ImportSummary } from '../../src/client/import-folder.ts';
import type { Config } from '../../src/config.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { type Run, type ServerProcess, freePort, runImport, startServerProcess } from '../helpers/server-process.ts';

const KEY = 'ak_client-import-test-key-0123456789';

function envOf(config: Config): Record<string, string> {
  return {
    DATA_DIR: config.dataDir,
    ANNOSTORE_API_KEY: KEY,
    TASK_POLL_MS: '50',
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl, DATABASE_SCHEMA: config.databaseSchema! } : {}),
  };
}

/** A PNG of noise: every seed other bytes, and big enough that uploads take a moment. */
async function noisePng(size: number, seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(size * size * 3);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < pixels.length; i += 1) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    pixels[i] = x & 0xff;
  }
  return sharp(pixels, { raw: { width: size, height: size, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
}

interface Expected {
  dataset: string;
  name: string;
  hash: string;
  annotation: { description: string; tags: string[]; objects: { classTitle: string; points: { exterior: number[][] } }[] };
}

/** A Supervisely project folder: meta.json, two datasets of images and one annotation per image. */
async function makeProject(dir: string, count: number, seed: number, size = 64): Promise<Expected[]> {
  fs.mkdirSync(dir, { recursive: true });
  const meta = { classes: [{ title: 'box', shape: 'rectangle', color: '#FF0000' }], tags_images: ['seen'], tags_objects: [] };
  fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
  const expected: Expected[] = [];
  for (let i = 0; i < count; i += 1) {
    const dataset = i % 3 === 0 ? 'train' : 'val';
    const name = `img-${String(i).padStart(3, '0')}.png`;
    const png = await noisePng(size, seed + i);
    fs.mkdirSync(path.join(dir, dataset, 'img'), { recursive: true });
    fs.mkdirSync(path.join(dir, dataset, 'ann'), { recursive: true });
    fs.writeFileSync(path.join(dir, dataset, 'img', name), png);
    const annotation = {
      description: `image ${i}`,
      tags: i % 2 === 0 ? ['seen'] : [],
      size: { width: size, height: size },
      objects: [{ classTitle: 'box', description: '', tags: [], bitmap: null, points: { exterior: [[1, 2], [10 + (i % 20), 30]], interior: [] } }],
    };
    fs.writeFileSync(path.join(dir, dataset, 'ann', `${name}.json`), JSON.stringify(annotation));
    expected.push({ dataset, name, hash: createHash('sha256').update(png).digest('base64'), annotation });
  }
  fs.writeFileSync(path.join(dir, 'README.txt'), 'not part of the import');
  return expected;
}

/** The --json summary of a run that got as far as a project. */
type Summary = ImportSummary & { projectId: number };

const summaryOf = (run: Run): Summary => JSON.parse(run.stdout.trim().split('\n').pop()!) as Summary;

async function checkProject(client: AnnostoreClient, projectId: number, expected: Expected[]): Promise<void> {
  const records = [];
  for await (const record of client.allAnnotations({ projectId })) records.push(record);
  assert.equal(records.length, expected.length, 'each image once');
  const datasets = await client.listDatasets({ projectId });
  assert.deepEqual(datasets.map((d) => d.title).sort(), [...new Set(expected.map((e) => e.dataset))].sort());
  const byName = new Map(records.map((r) => [r.data.name, r.data]));
  for (const e of expected) {
    const data = byName.get(e.name);
    assert.ok(data, `${e.name} was imported`);
    assert.equal(data.description, e.annotation.description);
    assert.deepEqual(data.tags, e.annotation.tags);
    assert.deepEqual(
      data.objects.map((o) => ({ classTitle: o.classTitle, points: { exterior: o.points.exterior } })),
      e.annotation.objects.map((o) => ({ classTitle: o.classTitle, points: { exterior: o.points.exterior } })),
    );
  }
}

for (const dialect of dialects) {
  describe(`annostore import on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let server: ServerProcess;
    let client: AnnostoreClient;
    let work: string;
    before(async () => {
      config = dialect.freshConfig();
      work = tempDir('client-import');
      server = await startServerProcess(envOf(config));
      client = new AnnostoreClient({ url: server.url, key: KEY });
    });
    after(async () => {
      await server?.kill();
      await dialect.cleanup(config);
      fs.rmSync(work, { recursive: true, force: true });
    });

    test('a project folder is imported as its files say; a second run uploads no image', { timeout: 120_000 }, async () => {
      const dir = path.join(work, 'roads');
      const expected = await makeProject(dir, 36, 1000);
      const first = await runImport([dir, '--url', server.url, '--key', KEY, '--json']);
      assert.equal(first.code, 0, first.stderr);
      const summary = summaryOf(first);
      assert.equal(summary.status, 'finished');
      assert.equal(summary.files, 36 * 2 + 1, 'images, annotations and meta.json; README.txt left out');
      assert.equal(summary.imagesUploaded, 36);
      assert.equal(summary.imagesSkipped, 0);
      assert.ok(summary.imageBytesUploaded > 0 && summary.bytesUploaded > summary.imageBytesUploaded);
      const [project] = await client.listProjects({ projectId: summary.projectId });
      assert.equal(project?.title, 'roads', 'the folder name is the default title');
      await checkProject(client, summary.projectId, expected);
      assert.match(first.stderr, /hashing 36 images/, 'progress goes to stderr with --json');

      const second = await runImport([dir, '--url', server.url, '--key', KEY, '--json']);
      assert.equal(second.code, 0, second.stderr);
      const again = summaryOf(second);
      assert.equal(again.status, 'finished');
      assert.equal(again.imagesUploaded, 0);
      assert.equal(again.imageBytesUploaded, 0, 'no image byte is sent twice');
      assert.equal(again.imagesSkipped, 36);
      assert.equal(again.projectId, summary.projectId, 'the project of that title is continued');
      await checkProject(client, summary.projectId, expected);
    });

    test('an interrupted run, run again, uploads only what was missing and completes', { timeout: 120_000 }, async () => {
      const dir = path.join(work, 'interrupted');
      const expected = await makeProject(dir, 40, 5000, 160);
      let killed = false;
      const interrupted = await runImport([dir, '--url', server.url, '--key', KEY, '--batch-files', '2', '--concurrency', '1'], (stdout, child) => {
        // Plain lines (stdout is a pipe): the first "uploaded" line comes once a request has answered.
        if (!killed && /^uploaded [1-9]/m.test(stdout)) {
          killed = true;
          child.kill('SIGKILL');
        }
      });
      assert.equal(interrupted.signal, 'SIGKILL', `the run was not interrupted:\n${interrupted.stdout}${interrupted.stderr}`);
      // A request the client had sent whole before it died is still stored: wait until the answer settles.
      let missing = await client.checkImages(expected.map((e) => e.hash));
      for (let unchanged = 0; unchanged < 3; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const now = await client.checkImages(expected.map((e) => e.hash));
        unchanged = now.length === missing.length ? unchanged + 1 : 0;
        missing = now;
      }
      assert.ok(missing.length < expected.length, 'some images were stored before the interrupt');
      assert.ok(missing.length > 0, 'and some were not');

      const rerun = await runImport([dir, '--url', server.url, '--key', KEY, '--json', '--batch-files', '2']);
      assert.equal(rerun.code, 0, rerun.stderr);
      const summary = summaryOf(rerun);
      assert.equal(summary.status, 'finished');
      // Every image once, sent or skipped as known. A request of the killed run that the server was
      // still storing may have landed after the quiet spell above: then fewer are sent, never more.
      assert.equal(summary.imagesUploaded + summary.imagesSkipped, expected.length);
      assert.ok(summary.imagesUploaded <= missing.length, `${summary.imagesUploaded} sent of ${missing.length} missing: only the missing images are sent`);
      assert.ok(summary.imagesUploaded > 0, 'the missing images are sent');
      assert.deepEqual(await client.checkImages(expected.map((e) => e.hash)), []);
      await checkProject(client, summary.projectId, expected);
    });

    test('a folder of images: one dataset per subfolder, preset 2, into a project named on the command line', { timeout: 60_000 }, async () => {
      const dir = path.join(work, 'plain');
      for (const [i, sub] of ['cats', 'cats', 'dogs'].entries()) {
        fs.mkdirSync(path.join(dir, sub), { recursive: true });
        fs.writeFileSync(path.join(dir, sub, `p${i}.png`), await noisePng(24, 9000 + i));
      }
      const run = await runImport([dir, '--url', server.url, '--key', KEY, '--project', 'Pets', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const summary = summaryOf(run);
      const [project] = await client.listProjects({ projectId: summary.projectId });
      assert.equal(project?.title, 'Pets');
      const datasets = await client.listDatasets({ projectId: summary.projectId });
      assert.deepEqual(datasets.map((d) => d.title).sort(), ['cats', 'dogs']);
      const names = (await client.listAnnotations({ projectId: summary.projectId })).map((r) => r.data.name).sort();
      assert.deepEqual(names, ['p0.png', 'p1.png', 'p2.png']);
    });

    test('a second folder without meta.json adds its images and annotations to an existing project, never to a new one', { timeout: 120_000 }, async () => {
      const firstDir = path.join(work, 'with-meta');
      await makeProject(firstDir, 3, 11_000);
      const first = await runImport([firstDir, '--url', server.url, '--key', KEY, '--json']);
      assert.equal(first.code, 0, first.stderr);
      const projectId = summaryOf(first).projectId;
      const secondDir = path.join(work, 'more');
      const more = await makeProject(secondDir, 4, 12_000);
      fs.rmSync(path.join(secondDir, 'meta.json'));
      // Names of their own, so that none is taken for an image the project has already.
      for (const e of more) {
        fs.renameSync(path.join(secondDir, e.dataset, 'img', e.name), path.join(secondDir, e.dataset, 'img', `more-${e.name}`));
        fs.renameSync(path.join(secondDir, e.dataset, 'ann', `${e.name}.json`), path.join(secondDir, e.dataset, 'ann', `more-${e.name}.json`));
        e.name = `more-${e.name}`;
      }

      const intoNew = await runImport([secondDir, '--url', server.url, '--key', KEY, '--project', 'More']);
      assert.equal(intoNew.code, 1, intoNew.stderr);
      assert.match(intoNew.stderr, /no meta\.json or classes\.json at the root of the project/);
      assert.ok(!(await client.listProjects()).some((p) => p.title === 'More'), 'no project was made');

      const intoExisting = await runImport([secondDir, '--url', server.url, '--key', KEY, '--project-id', String(projectId), '--json']);
      assert.equal(intoExisting.code, 0, intoExisting.stderr);
      assert.equal(summaryOf(intoExisting).files, 4 * 2, 'the images and their annotations are sent as a Supervisely project');
      const byName = new Map<string, { objects: { points: { exterior: number[][] } }[] }>();
      for await (const record of client.allAnnotations({ projectId })) byName.set(record.data.name, record.data);
      assert.equal(byName.size, 3 + 4);
      for (const e of more) {
        const data = byName.get(e.name);
        assert.ok(data, `${e.name} was imported`);
        assert.deepEqual(data.objects.map((o) => o.points.exterior), e.annotation.objects.map((o) => o.points.exterior), `${e.name} kept its objects`);
      }
    });

    if (dialect.name === 'sqlite') {
      test('a wrong key exits 4 and says so', { timeout: 60_000 }, async () => {
        const dir = path.join(work, 'wrong-key');
        await makeProject(dir, 2, 7000);
        const run = await runImport([dir, '--url', server.url, '--key', 'ak_not-a-key-of-this-server-000000']);
        assert.equal(run.code, 4, run.stderr);
        assert.match(run.stderr, /authentication failed: .* refused the key .*--key/);
      });

      test('a server that does not answer exits 5 and says so', { timeout: 60_000 }, async () => {
        const dir = path.join(work, 'unreachable');
        await makeProject(dir, 2, 7100);
        const run = await runImport([dir, '--url', `http://127.0.0.1:${await freePort()}`, '--key', KEY]);
        assert.equal(run.code, 5, run.stderr);
        assert.match(run.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+ .*ECONNREFUSED/);
        assert.match(run.stderr, /--url/);
      });

      test('a folder that is not a project, or that links out of itself, exits 3 and nothing is sent', { timeout: 60_000 }, async () => {
        const empty = path.join(work, 'notes');
        fs.mkdirSync(empty, { recursive: true });
        fs.writeFileSync(path.join(empty, 'notes.txt'), 'hello');
        const notProject = await runImport([empty, '--url', server.url, '--key', KEY]);
        assert.equal(notProject.code, 3, notProject.stderr);
        assert.match(notProject.stderr, /is not a project: no images found/);

        const missing = await runImport([path.join(work, 'no-such-folder'), '--url', server.url, '--key', KEY]);
        assert.equal(missing.code, 3, missing.stderr);
        assert.match(missing.stderr, /cannot be read \(ENOENT\)/);

        const linked = path.join(work, 'linked');
        await makeProject(linked, 2, 7200);
        const secret = path.join(work, 'secret.png');
        fs.writeFileSync(secret, await noisePng(8, 1));
        fs.symlinkSync(secret, path.join(linked, 'train', 'img', 'secret.png'));
        const before = (await client.listProjects()).length;
        const escaping = await runImport([linked, '--url', server.url, '--key', KEY]);
        assert.equal(escaping.code, 3, escaping.stderr);
        assert.match(escaping.stderr, /train\/img\/secret\.png: a link that leads out of the folder/);
        assert.equal((await client.listProjects()).length, before);

        const noImage = await runImport([empty, '--url', server.url, '--key', KEY, '--preset', '1']);
        assert.equal(noImage.code, 3);
        assert.match(noImage.stderr, /is not a project: no images found/);

        const usage = await runImport([empty, '--url', server.url, '--key', KEY, '--on-conflict', 'overwrite']);
        assert.equal(usage.code, 2);
        const noKey = await runImport([empty, '--url', server.url]);
        assert.equal(noKey.code, 2);
        assert.match(noKey.stderr, /no API key: pass --key or set ANNOSTORE_API_KEY/);
      });
    }
  });
}
