// A project's versions page in a real Chromium: a version made with a random split from the form,
// shown with its subsets, classes by index and split leakage; a second version after the project
// changed, compared with the first; the version exported through the export form; a version deleted
// after its confirmation. Checked with axe-core and photographed at 1440×900 and 390×844
// (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Browser } from 'playwright-core';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { checkAccessibility, launchChromium, shootWideAndNarrow, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web versions tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-versions-shots');
const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

describe('a project’s versions in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let runner: TaskRunner;
  let base: string;
  let browser: Browser;
  let projectId: number;
  let train: number;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    runner = startTaskRunner(t.ctx, silent, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    projectId = await newProject(t.ctx, { title: 'Harbour', classes: [{ title: 'boat', shape: 'polygon', color: '#1F77B4' }, { title: 'buoy', shape: 'polygon', color: '#FF7F0E' }] });
    train = await newDataset(t.ctx, projectId, 'day');
    const night = await newDataset(t.ctx, projectId, 'night');
    const same = Buffer.from('the very same bytes twice');
    for (let i = 0; i < 8; i++) {
      const objects = [polygon(i % 2 ? 'boat' : 'buoy', [[1, 1], [20, 1], [20, 20]])];
      await newImage(t.ctx, i < 6 ? train : night, { name: `h${i}.png`, objects, ...(i === 0 || i === 7 ? { bytes: same } : {}) });
    }
  });
  after(async () => {
    await browser?.close();
    await runner?.stop();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('a version is made from the form, shown, compared, exported and deleted', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true, acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
    await page.goto(`${base}/`);
    assert.equal(await page.getByRole('link', { name: 'Versions' }).getAttribute('href'), `/projects/${projectId}/versions`, 'the projects page links to it');
    await page.goto(`${base}/projects/${projectId}/images`);
    await page.getByRole('link', { name: 'Versions' }).click();
    await page.getByRole('heading', { name: 'Versions of Harbour', level: 1 }).waitFor();
    await page.getByText('No version yet').waitFor();
    await checkAccessibility(page, 'the versions page, empty');

    await page.getByLabel('Name').fill('v1');
    await page.getByLabel('Split').selectOption('datasets');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'Version v1' }).waitFor();
    const row = page.getByRole('row', { name: /v1/ });
    assert.match(await row.innerText(), /8\s+8\s+day 6, night 2/);
    const classes = await page.locator('.version-classes tbody tr').allInnerTexts();
    assert.deepEqual(classes.map((c) => c.replace(/\s+/g, ' ').trim()), ['1 boat polygon', '2 buoy polygon']);
    // h0 (day) and h7 (night) are the same bytes: a leak across subsets.
    await page.getByText('1 group of copies or near-duplicates spans subsets (2 images).').waitFor();
    await page.getByText('h0.png (day) · h7.png (night) — same bytes').waitFor();
    await checkAccessibility(page, 'a version shown');
    await shootWideAndNarrow(page, SHOTS, 'versions-v1');

    // The project changes; a second version, with a random split, is compared with the first.
    await newImage(t.ctx, train, { name: 'h8.png', objects: [polygon('boat', [[2, 2], [9, 2], [9, 9]])] });
    await page.getByLabel('Name').fill('v2');
    await page.getByLabel('Split').selectOption('random');
    await page.getByLabel('Ratios').fill('train=3, val=1');
    await page.getByLabel('Seed').fill('5');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'Version v2' }).waitFor();
    await page.getByText('train 7, val 2').first().waitFor();
    await page.getByLabel('Changes since').selectOption({ label: 'v1' });
    await page.getByText('Images: 1 added, 0 removed, 0 changed, 8 unchanged.').waitFor();
    const perClass = await page.locator('.version-diff tbody tr').allInnerTexts();
    assert.deepEqual(perClass.map((c) => c.replace(/\s+/g, ' ').trim()), ['boat 1 0 0']);
    await checkAccessibility(page, 'a diff between two versions');
    await shootWideAndNarrow(page, SHOTS, 'versions-diff');

    // The export form exports the version shown.
    await page.getByLabel('Format').selectOption('yolo');
    await page.getByRole('button', { name: 'Export version v2' }).click();
    await page.getByRole('link', { name: 'Download the archive' }).waitFor({ timeout: 30_000 });
    const exports = json<{ items: { type: string; meta: { name: string } }[] }>(await t.request({ method: 'GET', url: '/v2/tasks?type=export' }));
    assert.ok(exports.items.some((task) => task.meta.name === 'Harbour-v2-yolo'), JSON.stringify(exports.items.map((x) => x.meta.name)));

    // Delete v1, after its confirmation.
    await page.getByRole('button', { name: 'v1' }).click();
    await page.getByRole('button', { name: 'Delete version v1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete version v1?' });
    await dialog.waitFor();
    await checkAccessibility(page, 'the delete confirmation');
    await shootWideAndNarrow(page, SHOTS, 'versions-delete');
    await dialog.getByRole('button', { name: 'Delete version' }).click();
    await page.getByRole('row', { name: /v1/ }).waitFor({ state: 'detached' });
    const left = json<{ items: { name: string }[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/versions` }));
    assert.deepEqual(left.items.map((v) => v.name), ['v2']);
    await context.close();
  });
});
