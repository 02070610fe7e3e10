// The statistics page and the gallery's combined filters in a real Chromium: reached from the gallery,
// charts with a table beside each, a bar's row leading to the gallery filtered to it, the statistics
// of a filter, and the gallery's sort and combined filters kept in the URL. Checked with axe-core;
// screenshots at 1440 × 900 and 390 × 844 (WEB_SCREENSHOTS names a folder to keep them in).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web statistics tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('stats-shots');

const boxOf = (title: string, l: number, t: number, w: number, h: number): AnnotationObject =>
  polygon(title, [[l, t], [l + w, t], [l + w, t + h], [l, t + h]]);

describe('the statistics page and combined filters in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  let projectId: number;
  const classIds: Record<string, number> = {};

  before(async () => {
    t = await startTestApp(dialects[0]!);
    projectId = await newProject(t.ctx, { title: 'Street scenes', classes: [{ title: 'car', shape: 'polygon', color: '#1F77B4' }, { title: 'person', shape: 'polygon', color: '#D62728' }] });
    for (const r of await t.ctx.db.kysely.selectFrom('classes').select(['id', 'title']).where('project_id', '=', projectId).execute()) classIds[r.title] = r.id;
    const train = await newDataset(t.ctx, projectId, 'train');
    const val = await newDataset(t.ctx, projectId, 'val');
    await newImage(t.ctx, train, { name: 'cars.png', width: 640, height: 480, objects: [boxOf('car', 10, 10, 20, 20), boxOf('car', 300, 200, 120, 80), boxOf('person', 500, 300, 40, 100)] });
    await newImage(t.ctx, train, { name: 'people.png', width: 640, height: 480, objects: [boxOf('person', 100, 100, 30, 90)] });
    await newImage(t.ctx, val, { name: 'empty.png', width: 640, height: 480 });
    await newImage(t.ctx, val, { name: 'crowd.png', width: 1280, height: 720, objects: Array.from({ length: 6 }, (_, i) => boxOf('person', 100 * i, 300, 50, 150)) });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const shoot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const tileNames = () => page.locator('.tile-link').evaluateAll((links) => links.map((a) => a.getAttribute('title')));

  test('reached from the gallery: totals, and charts each with a table', async () => {
    await page.goto(`${base}/projects/${projectId}/images`);
    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/stats`);
    await page.locator('.stats-totals').waitFor();
    assert.match((await page.locator('.stats-totals').textContent())!, /Images4Objects10Images with no objects1/);
    const classes = page.getByRole('region', { name: 'Objects per class' });
    assert.deepEqual(await classes.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent)), ['car2', 'person8']);
    assert.equal(await classes.locator('svg rect').count(), 2);
    const perImage = page.getByRole('region', { name: 'Images per object count' });
    assert.equal(await perImage.locator('tbody tr').nth(6).textContent(), '61');
    assert.equal(await page.getByRole('region', { name: 'Objects per box aspect' }).getByRole('link').count(), 0, 'aspect has no filter');
    assert.equal(await page.getByRole('region', { name: 'Images per size' }).getByRole('link').count(), 0, 'size has no filter');
    await page.getByRole('heading', { name: 'Where each class’s objects sit' }).waitFor();
    await checkAccessibility(page, 'statistics page');
    await shoot('stats-1440');
    await page.setViewportSize({ width: 390, height: 844 });
    await checkAccessibility(page, 'statistics page, narrow');
    await shoot('stats-390');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  test('a row leads to the gallery filtered to it, and the statistics of that filter', async () => {
    await page.getByRole('region', { name: 'Images per object count' }).getByRole('link', { name: '6', exact: true }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images?minObjects=6&maxObjects=6`);
    await page.locator('.tile-link').first().waitFor();
    assert.deepEqual(await tileNames(), ['crowd.png']);
    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/stats?minObjects=6&maxObjects=6`);
    await page.getByText('Of the images the gallery’s filters find.').waitFor();
    assert.match((await page.locator('.stats-totals').textContent())!, /Images1Objects6/);
    await page.getByRole('link', { name: '1', exact: true }).first().waitFor();
    await page.getByRole('link', { name: 'Back to the gallery' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images?minObjects=6&maxObjects=6`);
    // A click on a bar goes where its row's link does.
    await page.goto(`${base}/projects/${projectId}/stats`);
    await page.getByRole('region', { name: 'Objects per class' }).locator('.stats-bar-link').first().click();
    await page.waitForURL(`${base}/projects/${projectId}/images?classAny=${classIds.car}`);
    await page.locator('.tile-link').first().waitFor();
    assert.deepEqual(await tileNames(), ['cars.png']);
  });

  test('combined filters and the sort stay in the gallery’s URL', async () => {
    await page.goto(`${base}/projects/${projectId}/images?classAny=${classIds.person}&classNone=${classIds.car}`);
    await page.locator('.tile-link').first().waitFor();
    assert.deepEqual((await tileNames()).sort(), ['crowd.png', 'people.png']);
    await page.getByLabel('Sort').selectOption('-objects');
    await page.waitForURL(`${base}/projects/${projectId}/images?classAny=${classIds.person}&classNone=${classIds.car}&sort=-objects`);
    await page.waitForFunction("document.querySelector('.tile-link')?.getAttribute('title') === 'crowd.png'");
    assert.deepEqual(await tileNames(), ['crowd.png', 'people.png']);
    await checkAccessibility(page, 'gallery with combined filters');
    await page.screenshot({ path: path.join(SHOTS, 'gallery-combined-1440.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SHOTS, 'gallery-combined-390.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${base}/projects/${projectId}/images?maxObjects=0`);
    await page.locator('.tile-link').first().waitFor();
    assert.deepEqual(await tileNames(), ['empty.png']);
  });
});
