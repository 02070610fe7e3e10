// The near-duplicates page and the image view's similar images, in a real Chromium: reached from the
// gallery, groups as thumbnail rows with the cross-dataset flag, the threshold and the filter kept in
// the URL, images without hashes counted, a group's copies selected and tagged, then deleted, through
// the same batch bar as the gallery. Checked with axe-core; screenshots at 1440 × 900 and 390 × 844
// (WEB_SCREENSHOTS names a folder to keep them in).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Route } from 'playwright-core';
import sharp from 'sharp';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag } from '../helpers/factories.ts';
import { distinctPicture } from '../helpers/near-duplicate-corpus.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web near-duplicates tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('near-shots');

describe('the near-duplicates page in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  let projectId: number;
  const ids: Record<string, number> = {};

  before(async () => {
    t = await startTestApp(dialects[0]!);
    projectId = await newProject(t.ctx, { title: 'Street scenes' });
    const train = await newDataset(t.ctx, projectId, 'train');
    const val = await newDataset(t.ctx, projectId, 'val');
    await newTag(t.ctx, projectId, { scope: 'images', title: 'duplicate' });
    const add = async (name: string, datasetId: number, bytes: Buffer) => {
      const image = await newImage(t.ctx, datasetId, { name, bytes, width: 640, height: 480 });
      ids[name] = image.id;
      if (name !== 'unreadable.png') await t.ctx.thumbnails.make(image.hash, 256);
    };
    const pictures = await Promise.all([0, 1, 2, 3, 4].map(distinctPicture));
    await add('crossing.png', train, pictures[0]!);
    await add('crossing-small.jpg', val, await sharp(pictures[0]).resize(320).jpeg({ quality: 50 }).toBuffer());
    const { width, height } = await sharp(pictures[0]).metadata();
    // 4 % off the left and top.
    const crop = { left: Math.round(width! * 0.04), top: Math.round(height! * 0.04) };
    await add('crossing-crop.png', val, await sharp(pictures[0]).extract({ ...crop, width: width! - crop.left, height: height! - crop.top }).png().toBuffer());
    await add('market.png', train, pictures[1]!);
    await add('market-bright.png', train, await sharp(pictures[1]).linear(1.1, 0).png().toBuffer());
    await add('harbour.png', train, pictures[2]!);
    await add('bridge.png', val, pictures[3]!);
    await add('station.png', val, pictures[4]!);
    await add('unreadable.png', train, Buffer.from('no picture here'));
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

  const shoot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  const groups = () => page.locator('.near-group');
  /** The page's title with its counts (a live region inside the heading). */
  const heading = (text: RegExp) => page.locator('h1', { hasText: text });
  const api = async <T,>(url: string) => json<T>(await t.request({ method: 'GET', url }));

  test('reached from the gallery: groups as rows of thumbnails, the one across datasets flagged', async () => {
    await page.goto(`${base}/projects/${projectId}/images`);
    await page.getByRole('link', { name: 'Near-duplicates' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/near-duplicates`);
    await heading(/Near-duplicates · 2 groups, 1 across datasets/).waitFor();
    assert.equal(await groups().count(), 2);
    const first = groups().nth(0);
    assert.match((await first.textContent())!, /3 images.*train 1 · val 2.*Across datasets/);
    assert.deepEqual(await first.locator('.near-row a').evaluateAll((links) => links.map((a) => a.getAttribute('title'))), ['crossing.png', 'crossing-small.jpg', 'crossing-crop.png']);
    assert.equal(await groups().nth(1).locator('.flag').count(), 0, 'market and its copy lie in one dataset');
    await page.getByText('1 of 9 images have no perceptual hashes yet').waitFor();
    // Every thumbnail has loaded.
    await page.waitForFunction('[...document.querySelectorAll(".near-row img")].every((img) => img.complete && img.naturalWidth > 0)');
    await checkAccessibility(page, 'the near-duplicates page');
    await shoot('near-duplicates');
  });

  test('the threshold and the cross-dataset filter are in the URL', async () => {
    await page.getByLabel('Only groups across datasets').check();
    await page.waitForURL(/cross=1/);
    await heading(/1 group, 1 across datasets/).waitFor();
    assert.equal(await groups().count(), 1);
    await page.getByLabel('Only groups across datasets').uncheck();
    const strict = await api<{ groupCount: number }>(`/v2/projects/${projectId}/near-duplicates?distance=2`);
    // A range input is not filled: set it as a drag ends, with its input and change events. The
    // heading is read once the page has the report at that distance, not the one before it.
    const report = page.waitForResponse((r) => r.url().includes('/near-duplicates?') && new URL(r.url()).searchParams.get('distance') === '2');
    await page.getByLabel('Threshold').evaluate((input: { value: string; dispatchEvent(event: Event): boolean }) => {
      input.value = '2';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.waitForURL(/distance=2/);
    await report;
    await heading(new RegExp(`Near-duplicates · ${strict.groupCount} group`)).waitFor();
    await page.getByText('2 bits').waitFor();
    await page.reload();
    assert.equal(await page.getByLabel('Threshold').inputValue(), '2');
    await page.goto(`${base}/projects/${projectId}/near-duplicates`);
    await heading(/2 groups/).waitFor();
  });

  test('a group’s copies are selected in one click, tagged, then deleted', async () => {
    // The project's tags answered only once the selection's bar is shown: it tags all the same.
    let letTagsGo!: () => void;
    const tagsHeld = new Promise<void>((resolve) => (letTagsGo = resolve));
    const holdTags = async (route: Route) => {
      await tagsHeld;
      await route.continue();
    };
    await page.route('**/v2/projects/*/tags?*', holdTags);
    await page.reload();
    await heading(/2 groups/).waitFor();
    const first = groups().nth(0);
    await first.getByRole('button', { name: 'Select all but the first' }).click();
    const bar = page.getByRole('region', { name: 'Selected images' });
    await bar.getByText('2 images selected').waitFor();
    letTagsGo();
    // Offered once the tags are here; the route is left after its answer.
    await bar.getByRole('button', { name: 'Add tag' }).waitFor();
    await page.unroute('**/v2/projects/*/tags?*', holdTags);
    assert.equal(await page.getByLabel('Select crossing.png').isChecked(), false);
    await shoot('near-duplicates-selected');
    await bar.getByRole('button', { name: 'Add tag' }).click();
    await bar.getByText('done for 2 images').waitFor();
    for (const name of ['crossing-small.jpg', 'crossing-crop.png']) {
      const image = await api<{ tags: { title: string }[] }>(`/v2/images/${ids[name]}`);
      assert.deepEqual(image.tags.map((tag) => tag.title), ['duplicate'], name);
    }
    // The selection stays after the tagging, for the next action.
    await bar.getByText('2 images selected').waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await bar.getByRole('button', { name: 'Delete' }).click();
    await heading(/Near-duplicates · 1 group, 0 across datasets/).waitFor();
    assert.equal((await t.request({ method: 'GET', url: `/v2/images/${ids['crossing-small.jpg']}` })).statusCode, 404);
  });

  test('the image view lists the images like the one shown', async () => {
    await page.goto(`${base}/images/${ids['market.png']}`);
    const section = page.getByRole('region', { name: /Similar images/ });
    await section.getByRole('link', { name: /market-bright\.png/ }).waitFor();
    assert.match((await section.textContent())!, /market-bright\.png.*train · pHash \d+ · dHash \d+/);
    await page.goto(`${base}/images/${ids['harbour.png']}`);
    await page.getByRole('region', { name: 'Similar images' }).getByText('None in the team.').waitFor();
    await page.goto(`${base}/images/${ids['unreadable.png']}`);
    await page.getByText('Not compared yet').waitFor();
    await page.goto(`${base}/images/${ids['market.png']}`);
    await section.getByRole('link', { name: /market-bright\.png/ }).waitFor();
    await checkAccessibility(page, 'the image view with similar images');
    await shoot('image-view-similar');
    await section.getByRole('link', { name: /market-bright\.png/ }).click();
    await page.waitForURL(`${base}/images/${ids['market-bright.png']}`);
  });

  test('on a phone-sized window the rows scroll sideways and the controls wrap', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/projects/${projectId}/near-duplicates`);
    await heading(/Near-duplicates · 1 group/).waitFor();
    await page.waitForFunction('[...document.querySelectorAll(".near-row img")].every((img) => img.complete && img.naturalWidth > 0)');
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    await shoot('near-duplicates-narrow');
    await page.goto(`${base}/images/${ids['market.png']}`);
    const similar = page.getByRole('region', { name: /Similar images/ });
    await similar.getByRole('link', { name: /market-bright\.png/ }).waitFor();
    await similar.scrollIntoViewIfNeeded();
    await shoot('image-view-similar-narrow');
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
