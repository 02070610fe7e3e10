// The gallery's export form in Chromium: every option POST /v2/exports takes, shown for the format
// that takes it, the class subset as a checklist of the project's classes; the archive downloaded is
// the export asked for (YOLO segment of two classes with datasets as splits, VOC with its masks, the
// masks format in the 2018 layout without human masks).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import pino from 'pino';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { startTaskRunner } from '../../src/tasks/runner.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web export tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-export-shots');

const COW = polygon('cow', [[20, 20], [120, 20], [120, 90], [20, 90]]);
const SHEEP = polygon('sheep', [[150, 30], [220, 30], [220, 100], [150, 100]]);
const TRACTOR: AnnotationObject = { classTitle: 'tractor', description: '', tags: [], bitmap: null, points: { exterior: [[30, 120], [140, 200]], interior: [] } };

/** Every file under `dir`, as paths relative to it with forward slashes, sorted. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => fs.statSync(path.join(dir, p)).isFile())
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

describe('the export form in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let projectId: number;
  let runner: { stop(): Promise<void> };

  before(async () => {
    t = await startTestApp(dialects[0]!);
    projectId = await newProject(t.ctx, {
      title: 'Farm',
      classes: [
        { title: 'cow', shape: 'polygon', color: '#8D6E63' },
        { title: 'sheep', shape: 'polygon', color: '#BDBDBD' },
        { title: 'tractor', shape: 'rectangle', color: '#E53935' },
        { title: 'fence', shape: 'line', color: '#43A047' },
      ],
    });
    const train = await newDataset(t.ctx, projectId, 'train');
    const val = await newDataset(t.ctx, projectId, 'val');
    for (let i = 0; i < 3; i += 1) {
      await newImage(t.ctx, train, { name: `field_${i}.png`, bytes: await picture(240, 240, { seed: i }), width: 240, height: 240, objects: [COW, SHEEP, TRACTOR] });
    }
    await newImage(t.ctx, val, { name: 'barn_0.png', bytes: await picture(240, 240, { seed: 9 }), width: 240, height: 240, objects: [SHEEP, COW] });
    await newImage(t.ctx, val, { name: 'barn_1.png', bytes: await picture(240, 240, { seed: 10 }), width: 240, height: 240, objects: [] });
    runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true, acceptDownloads: true })).newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
  });

  after(async () => {
    await runner?.stop();
    await browser?.close();
    await t?.close();
  });

  const form = () => page.getByRole('form', { name: 'Export Farm' });

  /** Starts the export the form shows, downloads its archive and unpacks it. */
  async function exportAndUnpack(label: string): Promise<string> {
    await form().getByRole('button', { name: 'Export Farm' }).click();
    const link = form().getByRole('link', { name: 'Download the archive' });
    await link.waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const dir = tempDir(`web-export-${label}`);
    execFileSync('unzip', ['-q', (await download.path())!, '-d', dir]);
    return dir;
  }

  test('each format shows its own options only', async () => {
    await page.goto(`${base}/projects/${projectId}/images`);
    const visible = async () => {
      const labels = ['YOLO task', 'Datasets as splits', 'Segmentation masks', 'Machine masks', 'Human masks', 'Layout'];
      const shown: string[] = [];
      for (const label of labels) if (await form().getByLabel(label).isVisible()) shown.push(label);
      return shown;
    };
    await form().getByLabel('Format').selectOption('coco');
    assert.deepEqual(await visible(), []);
    await form().getByLabel('Format').selectOption('yolo');
    assert.deepEqual(await visible(), ['YOLO task', 'Datasets as splits']);
    await form().getByLabel('Format').selectOption('pascal_voc');
    assert.deepEqual(await visible(), ['Segmentation masks']);
    await form().getByLabel('Format').selectOption('masks');
    assert.deepEqual(await visible(), ['Machine masks', 'Human masks', 'Layout']);
    await form().getByLabel('Format').selectOption('supervisely');
    assert.deepEqual(await visible(), ['Layout']);
    // Every format: the shared options and the project's classes, all checked.
    for (const label of ['With the image files', 'Only annotated images', 'cow', 'sheep', 'tractor', 'fence']) {
      assert.equal(await form().getByRole('checkbox', { name: label, exact: true }).isChecked(), label !== 'Only annotated images', label);
    }
  });

  test('YOLO segment of a class subset, datasets as splits: the archive holds those classes only', async () => {
    await page.goto(`${base}/projects/${projectId}/images`);
    await form().getByLabel('Format').selectOption('yolo');
    await form().getByLabel('YOLO task').selectOption('segment');
    await form().getByLabel('Datasets as splits').check();
    await form().getByRole('checkbox', { name: 'sheep', exact: true }).uncheck();
    await form().getByRole('checkbox', { name: 'fence', exact: true }).uncheck();
    await form().getByLabel('Only annotated images').check();
    await page.getByRole('group', { name: /Classes \(2 of 4\)/ }).waitFor();
    await checkAccessibility(page, 'the export form');
    await page.screenshot({ path: path.join(SHOTS, 'export-form.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await form().evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(SHOTS, 'export-form-narrow.png') });
    await page.setViewportSize({ width: 1440, height: 900 });

    const dir = await exportAndUnpack('yolo');
    const files = filesUnder(dir);
    const yaml = fs.readFileSync(path.join(dir, files.find((f) => f.endsWith('data.yaml'))!), 'utf8');
    assert.match(yaml, /names:\s*\n\s*0: cow\s*\n\s*1: tractor\s*(\n|$)/, yaml);
    assert.doesNotMatch(yaml, /sheep|fence/);
    // Datasets as splits, only annotated images (barn_1 has no object), images included.
    const images = files.filter((f) => /\/images\/|^images\//.test(f)).map((f) => f.replace(/^.*images\//, ''));
    assert.deepEqual(images, ['train/field_0.png', 'train/field_1.png', 'train/field_2.png', 'val/barn_0.png']);
    const label = fs.readFileSync(path.join(dir, files.find((f) => f.endsWith('labels/train/field_0.txt'))!), 'utf8').trim().split('\n');
    // Segment: a polygon's class then its points (4 corners: 8 numbers); the tractor's box as 4 corners too.
    assert.deepEqual(label.map((line) => line.split(' ')[0]).sort(), ['0', '1']);
    for (const line of label) assert.equal(line.split(' ').length, 9, line);
    const barn = fs.readFileSync(path.join(dir, files.find((f) => f.endsWith('labels/val/barn_0.txt'))!), 'utf8').trim().split('\n');
    assert.deepEqual(barn.map((line) => line.split(' ')[0]), ['0'], 'the sheep left out');
  });

  test('Pascal VOC with segmentation masks', async () => {
    await page.goto(`${base}/projects/${projectId}/images`);
    await form().getByLabel('Format').selectOption('pascal_voc');
    await form().getByLabel('Segmentation masks').check();
    await form().getByLabel('With the image files').uncheck();
    const dir = await exportAndUnpack('voc');
    const files = filesUnder(dir);
    const under = (folder: string) => files.filter((f) => f.includes(`/${folder}/`) || f.startsWith(`${folder}/`)).map((f) => path.posix.basename(f));
    // A mask for each image with an object.
    assert.deepEqual(under('SegmentationClass'), ['barn_0.png', 'field_0.png', 'field_1.png', 'field_2.png']);
    assert.deepEqual(under('SegmentationObject'), ['barn_0.png', 'field_0.png', 'field_1.png', 'field_2.png']);
    assert.equal(under('Annotations').length, 5);
    assert.deepEqual(under('JPEGImages'), [], 'without the image files');
    const xml = fs.readFileSync(path.join(dir, files.find((f) => f.endsWith('Annotations/field_0.xml'))!), 'utf8');
    assert.match(xml, /<segmented>1<\/segmented>/);
  });

  test('masks in the 2018 layout, without human masks', async () => {
    await page.goto(`${base}/projects/${projectId}/images?dataset=`);
    await form().getByLabel('Format').selectOption('masks');
    await form().getByLabel('Human masks').uncheck();
    await form().getByLabel('Layout').selectOption('2018');
    await form().getByLabel('Layout').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'export-form-masks.png') });
    const dir = await exportAndUnpack('masks');
    const files = filesUnder(dir);
    assert.ok(files.some((f) => f.includes('masks_machine/')), files.join(' '));
    assert.ok(!files.some((f) => f.includes('masks_human/')), 'no human masks');
    const exports = JSON.parse((await t.request({ method: 'GET', url: '/v2/tasks?type=export' })).body) as { items: { meta: { config: { action: string; settings: Record<string, unknown> }[] } }[] };
    const save = exports.items[0]!.meta.config.at(-1)!;
    assert.equal(save.settings.layout, '2018', JSON.stringify(save));
  });
});
