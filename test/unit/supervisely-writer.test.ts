// The Supervisely writer: what it writes is read back exactly, by the readers and by a real import,
// for the sample project and for the peer projects.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseAnnotation, parseProjectMeta, planProject } from '../../src/formats/supervisely/index.ts';
import { SuperviselyWriter } from '../../src/formats/supervisely/writer.ts';
import type { ExportRecord } from '../../src/formats/writer.ts';
import { listFiles, readJson, scratchDir, writeAll, writeEntries } from '../helpers/archive-folder.ts';
import { dialects } from '../helpers/dialects.ts';
import { importFolder, readExport, storedImage } from '../helpers/export-round-trip.ts';
import { SAMPLE_PROJECT, sampleImages, sampleRecords } from '../helpers/export-samples.ts';
import { withImportRunner } from '../helpers/importing.ts';
import { PEER } from '../helpers/peer-fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';

async function writeSample(records: ExportRecord[], includeImages = true): Promise<string> {
  const dir = scratchDir('sly-writer');
  const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages });
  await writeEntries(await writeAll(writer, records), dir, sampleImages(records));
  await writer.close();
  return dir;
}

/** A record as the v1 contract stores it: tags on objects keep their names only. */
const stored = (r: ExportRecord) => ({ ...r, hash: '', objects: r.objects.map((o) => ({ ...o, tags: o.tags.map((t) => ({ name: t.name, value: null })) })) });

describe('Supervisely writer', () => {
  test('the layout, the meta and every annotation read back exactly by the readers', async () => {
    const records = sampleRecords();
    const dir = await writeSample(records);
    const files = listFiles(dir);
    assert.deepEqual(files, [
      'meta.json',
      'train/ann/a.jpg.json',
      'train/ann/a.png.json',
      'train/img/a.jpg',
      'train/img/a.png',
      'val/ann/c.jpg.json',
      'val/ann/empty.jpg.json',
      'val/img/c.jpg',
      'val/img/empty.jpg',
    ]);
    const plan = planProject(files);
    assert.deepEqual(plan.datasets.map((d) => [d.name, d.images.map((i) => [i.name, i.annotationPath])]), [
      ['train', [['a.jpg', 'train/ann/a.jpg.json'], ['a.png', 'train/ann/a.png.json']]],
      ['val', [['c.jpg', 'val/ann/c.jpg.json'], ['empty.jpg', 'val/ann/empty.jpg.json']]],
    ]);
    const meta = parseProjectMeta(readJson(dir, 'meta.json'));
    assert.deepEqual(meta.classes, SAMPLE_PROJECT.classes);
    assert.deepEqual(meta.tags, SAMPLE_PROJECT.tags);
    for (const r of records) {
      const { annotation, skipped } = parseAnnotation(readJson(dir, `${r.dataset}/ann/${r.name}.json`), meta);
      assert.deepEqual(skipped, []);
      assert.deepEqual(annotation.description, r.description);
      assert.deepEqual(annotation.tags, r.tags);
      assert.deepEqual(annotation.size, { width: r.width, height: r.height });
      assert.deepEqual(annotation.objects.map((o) => ({ ...o, bitmap: o.bitmap && { origin: o.bitmap.origin, data: o.bitmap.data } })), r.objects);
    }
  });

  test('without images only the annotations and the meta are written', async () => {
    const dir = await writeSample(sampleRecords(), false);
    assert.ok(listFiles(dir).every((p) => !p.includes('/img/')));
    assert.equal(listFiles(dir).length, 5);
  });

  test('names unsafe in a path or equal but for case are changed, and said so', async () => {
    const [a] = sampleRecords();
    const records = [
      { ...a!, dataset: 'x/y', name: 'A.jpg' },
      { ...a!, dataset: 'x/y', name: 'a.jpg' },
      { ...a!, dataset: '..', name: 'b\\c.jpg' },
    ];
    const writer = new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: false });
    const entries = await writeAll(writer, records);
    assert.deepEqual(entries.map((e) => e.path).sort(), ['__/ann/b_c.jpg.json', 'meta.json', 'x_y/ann/A.jpg.json', 'x_y/ann/a_1.jpg.json']);
    assert.deepEqual(writer.notices().map((n) => [n.count, n.first]), [[2, 'x/y/a.jpg']]);
  });

  test('titles that name a drive or climb out stay inside the archive', async () => {
    const [a] = sampleRecords();
    const titles = ['C:\\drive', 'c:', '..\\x', '../x'];
    const records = titles.map((title) => ({ ...a!, dataset: title, name: `${title}.jpg` }));
    const entries = await writeAll(new SuperviselyWriter(SAMPLE_PROJECT, { includeImages: false }), records);
    const paths = entries.map((e) => e.path).filter((p) => p !== 'meta.json');
    const folders = paths.map((p) => p.split('/')[0]);
    assert.deepEqual(folders.slice(0, 3), ['C__drive', 'c_', '.._x']);
    assert.equal(new Set(folders).size, 4, 'the two titles made alike stay apart');
    for (const p of paths) {
      assert.ok(p.split('/').every((segment) => !/^[A-Za-z]:/.test(segment) && !/^\.+$/.test(segment) && !segment.includes('\\')), p);
    }
    assert.equal(paths[0], 'C__drive/ann/C__drive.jpg.json');
  });

  describe('through the app', () => {
    const [sqlite] = dialects;
    let t: TestApp;
    withImportRunner(sqlite!, (app) => (t = app));

    /** Writes a project read from the app and imports the folder: the import must give it back. */
    async function exportAndImport(projectId: number) {
      const first = await readExport(t, projectId);
      const dir = scratchDir('sly-writer');
      const writer = new SuperviselyWriter(first.project, { includeImages: true });
      await writeEntries(await writeAll(writer, first.records), dir, storedImage(t));
      assert.deepEqual(writer.notices(), []);
      const again = await importFolder(t, dir, 'supervisely');
      fs.rmSync(dir, { recursive: true, force: true });
      return { first, second: await readExport(t, again.projectId) };
    }

    test('the sample project is imported as it was written', async () => {
      const records = sampleRecords();
      const dir = await writeSample(records);
      const { projectId } = await importFolder(t, dir, 'supervisely');
      const { project, records: back } = await readExport(t, projectId);
      assert.deepEqual(project.classes, SAMPLE_PROJECT.classes);
      assert.deepEqual(back.map(stored), records.map(stored));
      const { first, second } = await exportAndImport(projectId);
      assert.deepEqual(second.project, { ...first.project, title: second.project.title });
      assert.deepEqual(second.records, first.records);
    });

    for (const fixture of ['vector', 'instance']) {
      test(`the peer project ${fixture}: imported, written, imported again, the same`, async () => {
        const source = path.join(PEER, 'superannotate', 'supervisely', fixture);
        const { projectId } = await importFolder(t, source, 'supervisely');
        const { first, second } = await exportAndImport(projectId);
        assert.ok(first.records.some((r) => r.objects.length > 0));
        assert.deepEqual(second.project, { ...first.project, title: second.project.title });
        assert.deepEqual(second.records, first.records);
      });
    }
  });
});
