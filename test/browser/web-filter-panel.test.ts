// The gallery sidebar's combined filters in a real Chromium: a class AND NOT a tag with an object count
// range, chosen with the sidebar's controls, written to the URL with the API's parameter names and
// shown as exactly the images they find; the same address opened again shows them checked; on a narrow
// screen the filters fold. Checked with axe-core; screenshots at 1440 × 900 and 390 × 844
// (WEB_SCREENSHOTS names a folder to keep them in).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web filter panel tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('filter-panel-shots');

const boxes = (title: string, n: number): AnnotationObject[] => Array.from({ length: n }, (_, i) => polygon(title, [[10 * i, 0], [10 * i + 8, 0], [10 * i + 8, 8], [10 * i, 8]]));

describe('the gallery sidebar combines filters in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  let projectId: number;
  let review: number;
  const classIds: Record<string, number> = {};

  before(async () => {
    t = await startTestApp(dialects[0]!);
    projectId = await newProject(t.ctx, { title: 'Parking', classes: [{ title: 'car', shape: 'polygon', color: '#1F77B4' }, { title: 'person', shape: 'polygon', color: '#D62728' }] });
    for (const r of await t.ctx.db.kysely.selectFrom('classes').select(['id', 'title']).where('project_id', '=', projectId).execute()) classIds[r.title] = r.id;
    review = await newTag(t.ctx, projectId, { title: 'review' });
    const north = await newDataset(t.ctx, projectId, 'north');
    const south = await newDataset(t.ctx, projectId, 'south');
    // Only two-car.png and mixed.png have a car, no review tag, and 2 to 3 objects.
    await newImage(t.ctx, north, { name: 'two-car.png', objects: boxes('car', 2) });
    const tagged = await newImage(t.ctx, north, { name: 'tagged-cars.png', objects: boxes('car', 3) });
    await tagImage(t.ctx, tagged.id, review);
    await newImage(t.ctx, north, { name: 'one-car.png', objects: boxes('car', 1) });
    await newImage(t.ctx, south, { name: 'people.png', objects: boxes('person', 2) });
    await newImage(t.ctx, south, { name: 'five-cars.png', objects: boxes('car', 5) });
    await newImage(t.ctx, south, { name: 'mixed.png', objects: [...boxes('car', 2), ...boxes('person', 1)] });
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
  const tileNames = async () => (await page.locator('.tile-link').evaluateAll((links) => links.map((a) => a.getAttribute('title')))).sort();

  test('a class AND NOT a tag with an object count range shows exactly the images it finds', async () => {
    await page.goto(`${base}/projects/${projectId}/images`);
    await page.locator('.tile-link').first().waitFor();
    assert.equal((await tileNames()).length, 6);
    const panel = page.locator('.filter-panel');
    // Counts of images per class and tag beside each.
    await panel.locator('.combine-row', { hasText: 'car' }).locator('.facet-count', { hasText: '5' }).waitFor();
    await panel.locator('.combine-row', { hasText: 'review' }).locator('.facet-count', { hasText: '1' }).waitFor();

    await panel.getByRole('button', { name: 'Any: car' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images?classAny=${classIds.car}`);
    await panel.getByRole('button', { name: 'None: review' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images?classAny=${classIds.car}&tagNone=${review}`);
    await panel.getByLabel('At least').fill('2');
    await panel.getByLabel('At least').press('Enter');
    await panel.getByLabel('At most').fill('3');
    await panel.getByLabel('At most').press('Enter');
    await page.waitForURL(`${base}/projects/${projectId}/images?classAny=${classIds.car}&tagNone=${review}&minObjects=2&maxObjects=3`);
    await page.waitForFunction("document.querySelectorAll('.tile-link').length === 2");
    assert.deepEqual(await tileNames(), ['mixed.png', 'two-car.png']);
    assert.equal(await panel.getByRole('button', { name: 'Any: car' }).getAttribute('aria-pressed'), 'true');
    assert.match((await panel.locator('summary').textContent())!, /Combine filters \(4\)/);
    await checkAccessibility(page, 'gallery with combined filters');
    await shoot('filter-panel-1440');

    // The address alone gives the same view.
    await page.reload();
    await page.waitForFunction("document.querySelectorAll('.tile-link').length === 2");
    assert.deepEqual(await tileNames(), ['mixed.png', 'two-car.png']);
    assert.equal(await panel.getByLabel('At most').inputValue(), '3');

    // Pressing the pressed mode again takes the class out; two datasets at once.
    await panel.getByRole('button', { name: 'Any: car' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images?tagNone=${review}&minObjects=2&maxObjects=3`);
    await page.waitForFunction("document.querySelectorAll('.tile-link').length === 3");
    assert.deepEqual(await tileNames(), ['mixed.png', 'people.png', 'two-car.png']);
    await panel.getByRole('checkbox', { name: /south/ }).check();
    await page.waitForFunction("document.querySelectorAll('.tile-link').length === 2");
    assert.deepEqual(await tileNames(), ['mixed.png', 'people.png']);
    await panel.getByRole('button', { name: 'Clear these filters' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images`);
    await page.waitForFunction("document.querySelectorAll('.tile-link').length === 6");
  });

  test('on a narrow screen the filters fold and open', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/projects/${projectId}/images?classAny=${classIds.car}&boxMaxSide=32`);
    await page.waitForFunction("document.querySelectorAll('.tile-link').length === 5");
    const panel = page.locator('.filter-panel');
    assert.equal(await panel.evaluate((d) => (d as unknown as { open: boolean }).open), false);
    await shoot('filter-panel-390-folded');
    await panel.locator('summary').click();
    assert.equal(await panel.getByLabel('Box under S × S').inputValue(), '32');
    await checkAccessibility(page, 'gallery filters, narrow');
    await shoot('filter-panel-390');
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
