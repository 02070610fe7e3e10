// The gallery of a dataset of 300,000 images in Chromium: the scroller stays under the browser's cap on
// an element's height, dragging the scrollbar to its end shows the last image, a jump to the middle
// shows the images there, the page holds a bounded number of tiles, the tiles' objects come one
// request a page, and the thumbnail requests of rows scrolled past are aborted.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { bulkImages } from '../helpers/bulk-images.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newProject, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { serializeObjects } from '../../src/formats/canonical.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('the gallery at scale');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-gallery-scale-shots');
const COUNT = 300_000;
const nameAt = (position: number) => `img-${String(position).padStart(7, '0')}.png`;

describe('the gallery of 300,000 images in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let datasetId: number;
  let projectId: number;
  const requests = { thumbnails: 0, aborted: 0, overlays: 0, pages: 0 };
  /** While set, thumbnails are answered only once it settles (see the route below). */
  let thumbnailsHeld: Promise<void> | undefined;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    projectId = await newProject(t.ctx, { title: 'Drive logs', classes: [{ title: 'car', shape: 'polygon', color: '#E53935' }] });
    datasetId = await newDataset(t.ctx, projectId, 'frames');
    const objects = serializeObjects([polygon('car', [[20, 20], [140, 30], [120, 100], [30, 90]])]);
    await bulkImages(t.ctx, { datasetId, count: COUNT, bytes: await picture(160, 120, { seed: 3 }), width: 160, height: 120, objectsJson: objects, objectsEvery: 3 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium({ scrollbars: true });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    // Thumbnails answered slowly, as from a loaded server: a row scrolled past is still loading. While
    // a test holds them (thumbnailsHeld), none is answered before it lets them go.
    await page.route('**/v2/images/*/thumbnail', async (route) => {
      await (thumbnailsHeld ?? new Promise((resolve) => setTimeout(resolve, 400)));
      await route.continue().catch(() => undefined);
    });
    page.on('request', (request) => {
      const url = request.url();
      if (url.endsWith('/thumbnail')) requests.thumbnails += 1;
      else if (url.includes('/v2/images/overlays')) requests.overlays += 1;
      else if (url.includes('/v2/images?')) requests.pages += 1;
    });
    page.on('requestfailed', (request) => {
      if (request.url().endsWith('/thumbnail') && request.failure()?.errorText.includes('ABORTED')) requests.aborted += 1;
    });
    await signIn(page, base, t.key);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Waits until the scroller has stood still for 300 ms: a wheel's or a track click's scrolling is over. */
  const scrollerStill = () =>
    page.waitForFunction(`new Promise((resolve) => {
      const s = document.querySelector('.grid-scroller');
      const at = s.scrollTop;
      setTimeout(() => resolve(s.scrollTop === at), 300);
    })`);

  /** Waits until more than ten tiles' captions are wholly in the scroller's box: the page there has been drawn. */
  const screenfulShown = () =>
    page.waitForFunction(`(() => {
      const box = document.querySelector('.grid-scroller').getBoundingClientRect();
      return [...document.querySelectorAll('.tile .caption')].filter((c) => { const r = c.getBoundingClientRect(); return r.top >= box.top && r.bottom <= box.bottom; }).length > 10;
    })()`);

  /** The names of the tiles wholly inside the scroller's box. */
  const visibleNames = async (): Promise<string[]> =>
    (await page.evaluate(`(() => {
      const box = document.querySelector('.grid-scroller').getBoundingClientRect();
      return [...document.querySelectorAll('.tile .caption')].filter((c) => {
        const r = c.getBoundingClientRect();
        return r.top >= box.top && r.bottom <= box.bottom;
      }).map((c) => c.textContent);
    })()`)) as string[];

  test('every image is reachable: the scrollbar dragged to its end shows the last one', async () => {
    await page.goto(`${base}/projects/${projectId}/images?dataset=${datasetId}`);
    await page.getByRole('status').filter({ hasText: '300,000 images' }).waitFor();
    await page.locator('.tile-link', { hasText: nameAt(0) }).waitFor();
    const heights = (await page.evaluate(`(() => { const s = document.querySelector('.grid-scroller'); return [s.scrollHeight, s.clientHeight]; })()`)) as [number, number];
    assert.ok(heights[0] <= 8_000_100, `the scroller is ${heights[0]} px tall`);

    const dragToEnd = async () => {
      const box = (await page.locator('.grid-scroller').boundingBox())!;
      // The scrollbar's thumb (the smallest there is, under the arrow button at the top of the track
      // at the right edge) dragged past the bottom.
      const thumb = { x: box.x + box.width - 7, y: box.y + 27 };
      await page.mouse.move(thumb.x, thumb.y);
      await page.mouse.down();
      for (let step = 1; step <= 10; step += 1) await page.mouse.move(thumb.x, thumb.y + (step * (box.height + 100)) / 10);
      await page.mouse.up();
      await page.locator('.tile-link', { hasText: nameAt(COUNT - 1) }).locator('img').waitFor();
      const shown = await visibleNames();
      assert.ok(shown.includes(nameAt(COUNT - 1)), `the last image is in view: ${shown.join(', ')}`);
    };
    await dragToEnd();
    // The same at the sizes of the screenshots.
    for (const [width, height, name] of [[1440, 900, 'gallery-scale-end'], [390, 844, 'gallery-scale-end-narrow']] as const) {
      await page.setViewportSize({ width, height });
      await page.evaluate(`document.querySelector('.grid-scroller').scrollTop = 0`);
      await page.locator('.tile-link', { hasText: nameAt(0) }).waitFor();
      await dragToEnd();
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(`document.querySelector('.grid-scroller').scrollTop = 0`);
    await page.locator('.tile-link', { hasText: nameAt(0) }).waitFor();
    await dragToEnd();
    const box = (await page.locator('.grid-scroller').boundingBox())!;

    // The wheel goes on from there, up, one row at a time.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 5; i += 1) await page.mouse.wheel(0, -204);
    await scrollerStill();
    await screenfulShown();
    const up = await visibleNames();
    assert.ok(up.length > 0 && !up.includes(nameAt(COUNT - 1)), 'the rows above the last ones');
    const positions = up.map((n) => Number(n.slice(4, 11)));
    assert.ok(Math.min(...positions) > COUNT - 60 && Math.min(...positions) < COUNT - 20, `five rows up: ${up.join(', ')}`);
  });

  test('a jump to the middle shows the images there, a bounded number of tiles in the page', async () => {
    const box = (await page.locator('.grid-scroller').boundingBox())!;
    // A click on the scrollbar's track pages with an animation of Chromium's own, which on a busy
    // machine may still be moving the scroller after the jump below and carry it past the middle: the
    // jump is made once the scroller has stood still for 300 ms.
    await page.mouse.click(box.x + box.width - 6, box.y + box.height / 2);
    await scrollerStill();
    const started = Date.now();
    await page.evaluate(`(() => { const s = document.querySelector('.grid-scroller'); s.scrollTop = (s.scrollHeight - s.clientHeight) / 2; })()`);
    await page.waitForFunction(`[...document.querySelectorAll('.tile .caption')].some((c) => c.textContent.startsWith('img-0149') || c.textContent.startsWith('img-0150'))`);
    const took = Date.now() - started;
    // The page of the jump arrives whole, but may be drawn over more than one frame on a busy machine.
    await screenfulShown();
    const shown = await visibleNames();
    const positions = shown.map((n) => Number(n.slice(4, 11)));
    assert.ok(positions.length > 10, 'a screenful of tiles');
    assert.ok(Math.abs(Math.min(...positions) - COUNT / 2) < 100, `the middle: ${shown[0]}`);
    for (let i = 1; i < positions.length; i += 1) assert.equal(positions[i], positions[i - 1]! + 1, 'the tiles follow one another');
    assert.ok((await page.locator('li.tile').count()) < 150, 'the page holds the rows in view only');
    console.log(`# jump to the middle shown in ${took} ms`);
    await page.screenshot({ path: path.join(SHOTS, 'gallery-scale-middle.png') });
  });

  test('the tiles’ objects come one request a page, and thumbnails of rows scrolled past are aborted', async () => {
    await page.locator('.tile-link', { hasText: nameAt(COUNT / 2 + 3) }).locator('svg.tile-objects polygon.object').waitFor({ state: 'attached' });
    const before = { ...requests };
    const box = (await page.locator('.grid-scroller').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // A quick scroll through some 2,000 images, the thumbnails of each screenful still loading: held
    // until the scroll is over, however slowly this machine scrolls.
    let letGo!: () => void;
    thumbnailsHeld = new Promise<void>((resolve) => (letGo = resolve));
    for (let i = 0; i < 60; i += 1) {
      await page.mouse.wheel(0, 800);
      await page.waitForTimeout(30);
    }
    await scrollerStill();
    thumbnailsHeld = undefined;
    letGo();
    await screenfulShown();
    const issued = requests.thumbnails - before.thumbnails;
    const aborted = requests.aborted - before.aborted;
    const overlays = requests.overlays - before.overlays;
    console.log(`# scrolled: ${issued} thumbnail requests, ${aborted} aborted; ${overlays} overlay requests, ${requests.pages - before.pages} pages`);
    assert.ok(aborted > issued / 3, `${aborted} of ${issued} thumbnail requests aborted`);
    assert.ok(overlays <= 15, `${overlays} overlay requests`);
    const shown = await visibleNames();
    const tile = page.locator('.tile-link', { hasText: shown.find((n) => Number(n.slice(4, 11)) % 3 === 0)! });
    await tile.locator('svg.tile-objects polygon.object').waitFor({ state: 'attached' });
    await tile.locator('img').waitFor();
  });
});
