// `annostore import DIR` on every COCO, Pascal VOC and YOLO fixture, against a real server process:
// the command finds the format, sends only the files the format's import reads, and the project it
// makes holds the same images with the same objects as the server's own import of every file of the
// folder with the format's preset. A folder of no format, or of several, is refused with exit code 3.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AnnostoreClient, ApiError, type ImportFileRef, type UploadFile } from '../../src/client/index.ts';
import type { ImportSummary } from '../../src/client/import-folder.ts';
import type { Config } from '../../src/config.ts';
import { isImageName } from '../../src/formats/supervisely/layout.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { generatedImage, outsideFixtureCopy, peerFixtureCopy } from '../helpers/fixture-copy.ts';
import { type Run, type ServerProcess, runImport, startServerProcess } from '../helpers/server-process.ts';

const KEY = 'ak_client-import-formats-key-01234';
const PRESET = { coco: 3, pascal_voc: 4, yolo: 5 } as const;
type Format = keyof typeof PRESET;

interface Fixture {
  /** Folder under test/fixtures/peer/ or test/fixtures/outside/. */
  folder: string;
  copy: () => Promise<string>;
  format: Format;
  /** Files the command sends and files it leaves out, where they do not hang on pairing still being settled. */
  sent?: number;
  ignored?: number;
}

const peer = (folder: string, format: Format, sent?: number, ignored?: number): Fixture => ({ folder, copy: () => peerFixtureCopy(folder), format, sent, ignored });
const outside = (folder: string, format: Format, sent?: number, ignored?: number): Fixture => ({ folder, copy: () => outsideFixtureCopy(folder), format, sent, ignored });

const FIXTURES: Fixture[] = [
  peer('datumaro/coco/coco_instances', 'coco', 4, 0),
  peer('labelformat/coco/object_detection', 'coco', 3, 0),
  peer('labelformat/coco/instance_segmentation', 'coco', 5, 0),
  // The two results lists (dt_*.json) are left out; 100 images are made for cocoapi/.
  peer('faster_coco_eval/coco/dataset', 'coco', 107, 2),
  // The per-class lists, the Action, Layout and Segmentation lists are left out.
  peer('datumaro/voc/voc_dataset1', 'pascal_voc', 7, 28),
  peer('datumaro/voc/voc_dataset2', 'pascal_voc', 12, 25),
  peer('labelformat/voc/object_detection', 'pascal_voc', 4, 0),
  peer('datumaro/yolo/strict', 'yolo', 5, 0),
  peer('datumaro/yolo/labels', 'yolo', 5, 1),
  peer('datumaro/yolo/roboflow_yolo', 'yolo', 7, 0),
  peer('labelformat/yolo/object_detection', 'yolo', 5, 0),
  peer('labelformat/yolo/instance_segmentation', 'yolo', 5, 0),
  outside('super-gradients/coco/tinycoco', 'coco', 7, 0),
  outside('sahi/coco/coco_evaluate', 'coco', 3, 1),
  outside('roboflow-python/coco/sharks-tiny-coco', 'coco', 13, 0),
  // Whether 0af.xml goes with 0AF.jpg is the server's pairing to settle: no counts here.
  outside('roboflow-python/voc/chess', 'pascal_voc'),
  outside('mmdetection/voc/VOCdevkit', 'pascal_voc', 2, 0),
  outside('label-studio-converter/yolo/test_import_yolo_data', 'yolo', 15, 0),
  outside('label-studio-converter/yolo-seg/test_import_yolo_seg_data_unif_dims', 'yolo', 11, 0),
  outside('roboflow-python/yolo/sharks-tiny-yolov9', 'yolo', 21, 1),
  outside('sahi/yolo/coco2yolo', 'yolo', 5, 0),
];

/** Every file of a folder, by path inside it with forward slashes, sorted. */
function filesOf(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => fs.statSync(path.join(dir, p)).isFile())
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

type Summary = ImportSummary & { projectId: number };
const summaryOf = (run: Run): Summary => JSON.parse(run.stdout.trim().split('\n').pop()!) as Summary;

/** What a user sees of a project: its classes and tags, and each dataset's images with their objects. */
async function contentOf(client: AnnostoreClient, projectId: number) {
  const [project] = await client.listProjects({ projectId });
  const datasets = [];
  for (const dataset of (await client.listDatasets({ projectId })).sort((a, b) => (a.title < b.title ? -1 : 1))) {
    const images = [];
    for await (const record of client.allAnnotations({ projectId, datasetIds: [dataset.id] })) images.push(record.data);
    images.sort((a, b) => (a.name < b.name ? -1 : 1));
    datasets.push({ title: dataset.title, images });
  }
  return {
    classes: project!.classes.map((c) => [c.title, c.shape, c.color]).sort(),
    tags: project!.tags.map((t) => t.title).sort(),
    datasets,
  };
}

const [sqlite] = dialects;

describe('annostore import of COCO, Pascal VOC and YOLO folders', () => {
  let config: Config;
  let server: ServerProcess;
  let client: AnnostoreClient;
  /** Temporary folders to remove at the end. */
  const temporary: string[] = [];
  before(async () => {
    config = sqlite!.freshConfig();
    server = await startServerProcess({ DATA_DIR: config.dataDir, ANNOSTORE_API_KEY: KEY, TASK_POLL_MS: '50' });
    client = new AnnostoreClient({ url: server.url, key: KEY });
  });
  after(async () => {
    await server?.kill();
    await sqlite!.cleanup(config);
    for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A fixture's copy (fixtureCopy makes it inside a temporary folder of its own). */
  const copyOf = async (make: () => Promise<string>) => {
    const copy = await make();
    temporary.push(path.dirname(copy));
    return copy;
  };
  const cli = (dir: string, ...args: string[]) => runImport([dir, '--url', server.url, '--key', KEY, '--json', ...args]);

  /** The server's own import of every file of the folder, uploaded as import-formats.test.ts does, with the format's preset. */
  async function serverImport(dir: string, format: Format, title: string) {
    const files = filesOf(dir).map((p) => ({ path: p, type: isImageName(p) && !/Segmentation(Object|Class)\//.test(p) ? ('image' as const) : ('annotation' as const) }));
    const refs: ImportFileRef[] = [];
    for (let i = 0; i < files.length; i += 100) {
      const batch = files.slice(i, i + 100);
      const parts: UploadFile[] = batch.map((f) => ({ metadata: { id: f.path, type: f.type, format }, content: fs.readFileSync(path.join(dir, f.path)) }));
      const results = await client.uploadFiles(parts);
      results.forEach((r, j) => {
        assert.deepEqual(r.errors, [], batch[j]!.path);
        refs.push(r.hash ? { hash: r.hash, path: batch[j]!.path } : { fileId: r.fileId!, path: batch[j]!.path });
      });
    }
    return client.startImport({ project: { id: null, title }, preset: PRESET[format], files: refs });
  }

  for (const fixture of FIXTURES) {
    test(`${fixture.folder}: the same project as the server's own ${fixture.format} import`, { timeout: 120_000 }, async () => {
      const dir = await copyOf(fixture.copy);
      const run = await cli(dir, '--project', `cli ${fixture.folder}`);
      assert.equal(run.code, 0, run.stderr);
      const summary = summaryOf(run);
      assert.equal(summary.status, 'finished');
      if (fixture.sent !== undefined) assert.deepEqual([summary.files, summary.filesIgnored], [fixture.sent, fixture.ignored], 'files sent and left out');
      assert.equal(summary.files + summary.filesIgnored, filesOf(dir).length);
      const task = await client.getTask(summary.taskId);
      assert.equal((task.meta as { format?: string }).format, fixture.format);

      const { taskId } = await serverImport(dir, fixture.format, `server ${fixture.folder}`);
      const reference = await client.waitForTask(taskId, { intervalMs: 50 });
      assert.equal(reference.status, 'finished', JSON.stringify(reference.meta));

      const byCli = await contentOf(client, summary.projectId);
      const byServer = await contentOf(client, (reference.meta as { project: { id: number } }).project.id);
      assert.ok(byServer.datasets.some((d) => d.images.length > 0), 'the fixture has images to compare');
      assert.deepEqual(byCli, byServer);
    });
  }

  test('a second run sends no image again and leaves the project as it was', { timeout: 60_000 }, async () => {
    const dir = await copyOf(() => peerFixtureCopy('datumaro/voc/voc_dataset1'));
    const first = summaryOf(await cli(dir, '--project', 'twice'));
    const before = await contentOf(client, first.projectId);
    const again = await cli(dir, '--project', 'twice');
    assert.equal(again.code, 0, again.stderr);
    const second = summaryOf(again);
    assert.deepEqual([second.projectId, second.imagesUploaded, second.imageBytesUploaded, second.imagesSkipped], [first.projectId, 0, 0, 2]);
    assert.deepEqual(await contentOf(client, first.projectId), before);
  });

  test('a COCO folder of results lists alone: exit 3, saying why, as the server refuses it', { timeout: 60_000 }, async () => {
    const dir = await copyOf(() => peerFixtureCopy('cocoapi/coco/results'));
    const before = (await client.listProjects()).length;
    const run = await cli(dir);
    assert.equal(run.code, 3, run.stderr);
    // Each results list of the folder is named with the reason it is left out.
    assert.match(run.stderr, /has no image to import as COCO:\n/);
    for (const file of ['instances_val2014_fakebbox100_results.json', 'instances_val2014_fakesegm100_results.json']) {
      assert.ok(run.stderr.includes(`\n  ${file}: this is a COCO results list`), `${file} is named: ${run.stderr}`);
    }
    assert.match(run.stderr, /to import the images alone use --preset 2/);
    assert.equal((await client.listProjects()).length, before, 'nothing was created');
    await assert.rejects(serverImport(dir, 'coco', 'results'), (error) => error instanceof ApiError && error.status === 400 && /results list/.test(error.message));
  });

  test('a folder of images with a stray XML file is imported as a folder of images, one dataset per subfolder', { timeout: 60_000 }, async () => {
    const dir = tempDir('stray');
    temporary.push(dir);
    for (const [i, image] of ['trip/a.jpg', 'trip/b.jpg', 'home/c.png'].entries()) {
      fs.mkdirSync(path.join(dir, path.dirname(image)), { recursive: true });
      fs.writeFileSync(path.join(dir, image), await generatedImage(image, 16, 12, 500 + i));
    }
    fs.writeFileSync(path.join(dir, 'trip', 'settings.xml'), '<settings><camera>x</camera></settings>');
    const run = await cli(dir, '--project', 'stray');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /trip\/settings\.xml: no image has an annotation of that format beside it; imported as a folder of images/);
    const summary = summaryOf(run);
    assert.deepEqual([summary.files, summary.filesIgnored], [3, 1]);
    const datasets = await client.listDatasets({ projectId: summary.projectId });
    assert.deepEqual(datasets.map((d) => d.title).sort(), ['home', 'trip']);
  });

  test('a folder of several formats, of none, or not of the --preset: exit 3 naming what was looked for', { timeout: 60_000 }, async () => {
    // A YOLO dataset with the VOC files of the same photos beside it.
    const yolo = await copyOf(() => peerFixtureCopy('labelformat/yolo/object_detection'));
    const vocSource = path.resolve(import.meta.dirname, '../fixtures/peer/labelformat/voc/object_detection');
    for (const name of fs.readdirSync(vocSource)) fs.copyFileSync(path.join(vocSource, name), path.join(yolo, name));
    const projects = (await client.listProjects()).length;
    const both = await cli(yolo);
    assert.equal(both.code, 3, both.stderr);
    assert.match(both.stderr, /holds the files of several formats: Pascal VOC \(a-weird Filename\.asdf\.xml\), YOLO \(example\.yaml\); choose one with --preset 4 \(Pascal VOC\), 5 \(YOLO\)/);
    assert.equal((await client.listProjects()).length, projects, 'nothing was created');
    const chosen = await cli(yolo, '--preset', '5', '--project', 'chosen');
    assert.equal(chosen.code, 0, chosen.stderr);
    const summary = summaryOf(chosen);
    assert.deepEqual([summary.files, summary.filesIgnored], [5, 2], 'the XML files are left out');
    const notCoco = await cli(yolo, '--preset', '3');
    assert.equal(notCoco.code, 3, notCoco.stderr);
    assert.match(notCoco.stderr, /is not a COCO folder: expected COCO \(a \*\.json with images, annotations and categories/);

    const notes = tempDir('notes');
    temporary.push(notes);
    fs.writeFileSync(path.join(notes, 'notes.txt'), 'hello');
    const nothing = await cli(notes);
    assert.equal(nothing.code, 3, nothing.stderr);
    for (const layout of [/a Supervisely project \(meta\.json/, /COCO \(a \*\.json/, /Pascal VOC \(Annotations\/\*\.xml/, /YOLO \(data\.yaml/, /a folder of images/]) {
      assert.match(nothing.stderr, layout);
    }
    const badPreset = await cli(notes, '--preset', '6');
    assert.equal(badPreset.code, 2, badPreset.stderr);
  });
});
