// The image view's history panel, in a real Chromium: the revisions of an image newest first with who
// made them and what they changed, one previewed read-only on the stage, then restored (a new
// revision). At 1440×900 and 390×844, checked with axe-core.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web history tests');
const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-history-'));

const square = (x: number, y: number): AnnotationObject => ({
  classTitle: 'cell',
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior: [[x, y], [x + 80, y], [x + 80, y + 80], [x, y + 80]], interior: [] },
});

describe('the history panel of the image view', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let imageId: number;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    const projectId = await newProject(t.ctx, { title: 'Cells', classes: [{ title: 'cell', shape: 'polygon', color: '#1E88E5' }] });
    const ds = await newDataset(t.ctx, projectId, 'slides');
    const image = await newImage(t.ctx, ds, { name: 'slide.png', bytes: await picture(800, 600, { seed: 3 }), width: 800, height: 600, objects: [square(40, 40), square(200, 40), square(360, 40)] });
    imageId = image.id;
    // Two saves: one object removed, then one added and one moved.
    const read = async () => {
      const res = await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` });
      return json<{ objects: object[] }>(res);
    };
    const first = await read();
    await t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, payload: { ...first, objects: first.objects.slice(0, 2) } });
    await t.request({ method: 'PATCH', url: `/v2/images/${imageId}/annotation`, payload: { add: [square(40, 300)], change: [{ id: 1, points: { exterior: [[60, 60], [140, 60], [140, 140], [60, 140]], interior: [] } }] } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    console.log(`# screenshots in ${SHOTS}`);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(viewport: { width: number; height: number }): Promise<Page> {
    const page = await (await browser.newContext({ viewport, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
    await page.goto(`${base}/images/${imageId}`);
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
    return page;
  }

  const revisions = (page: Page) => page.getByRole('list', { name: 'Revisions, newest first' }).getByRole('button');

  test('lists the revisions, previews the older one read-only, and restores it as a new revision', async () => {
    const page = await open({ width: 1440, height: 900 });
    await page.getByText('History', { exact: true }).click();
    await revisions(page).nth(1).waitFor();
    assert.equal(await revisions(page).count(), 2);
    assert.match((await revisions(page).nth(0).textContent())!, /current.*you.*\+1 ~1/);
    assert.match((await revisions(page).nth(1).textContent())!, /you.*−1/);
    await page.screenshot({ path: path.join(SHOTS, 'history-1440.png') });
    await checkAccessibility(page, 'the history panel');

    // The older revision left two objects: the stage draws those, read-only.
    assert.equal(await page.locator('.stage svg .object').count(), 3);
    await revisions(page).nth(1).click();
    const banner = page.getByRole('region', { name: 'Revision preview' });
    await banner.waitFor();
    assert.match((await banner.textContent())!, /2 objects/);
    await page.locator('.stage svg .object').nth(2).waitFor({ state: 'detached' });
    assert.equal(await page.locator('.stage svg .object').count(), 2);
    assert.equal(await revisions(page).nth(1).getAttribute('aria-pressed'), 'true');
    await page.screenshot({ path: path.join(SHOTS, 'history-preview-1440.png') });
    await checkAccessibility(page, 'a revision previewed');

    await banner.getByRole('button', { name: 'Restore this revision' }).click();
    await banner.waitFor({ state: 'detached' });
    await page.getByText('Revision restored.').waitFor();
    await revisions(page).nth(2).waitFor();
    assert.equal(await page.locator('.stage svg .object').count(), 2);
    assert.match((await revisions(page).nth(0).textContent())!, /current.*you.*−1 ~1/);

    const stored = json<{ objects: { id: number }[] }>(await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` }));
    assert.deepEqual(stored.objects.map((o) => o.id), [1, 2]);
    await page.context().close();
  });

  test('at 390×844 the panel and the preview fit the narrow window', async () => {
    const page = await open({ width: 390, height: 844 });
    await page.getByText('History', { exact: true }).click();
    await revisions(page).nth(2).waitFor();
    await revisions(page).nth(2).click();
    const banner = page.getByRole('region', { name: 'Revision preview' });
    await banner.waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the window`);
    await page.getByRole('list', { name: 'Revisions, newest first' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'history-390.png') });
    await banner.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'history-preview-390.png') });
    await checkAccessibility(page, 'the history panel, narrow');
    await page.context().close();
  });
});
