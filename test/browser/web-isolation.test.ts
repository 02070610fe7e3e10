// The pages are cross-origin isolated (COOP same-origin, COEP require-corp) so that the segment
// tool's decoder runs on several WebAssembly threads; in Chromium every page still loads all it asks
// for (scripts, styles, thumbnails, the image, the decoder and its threads), and the decoder reports
// its threads.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { disc, shapePicture } from '../helpers/shapes.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('cross-origin isolation tests');

describe('cross-origin isolated pages in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let projectId: number;
  let imageId: number;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    projectId = await newProject(t.ctx, { title: 'Isolated', classes: [{ title: 'blob', shape: 'polygon', color: '#E53935' }] });
    const ds = await newDataset(t.ctx, projectId, 'shapes');
    imageId = (await newImage(t.ctx, ds, { name: 'disc.png', bytes: await shapePicture(320, 240, disc(160, 120, 60)), width: 320, height: 240, objects: [polygon('blob', [[100, 60], [220, 60], [220, 180]])] })).id;
    for (let i = 0; i < 3; i++) await newImage(t.ctx, ds, { name: `picture-${i}.png`, bytes: await picture(200, 150, { seed: i }), width: 200, height: 150 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page that records every request that failed (other than one it cancelled) or was refused, and every console error. */
  async function watched(): Promise<{ page: Page; problems: string[] }> {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    page.setDefaultTimeout(120_000);
    const problems: string[] = [];
    // A request the page cancels itself (on leaving a page, or a row scrolled past) is not refused.
    page.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText ?? '';
      if (reason !== 'net::ERR_ABORTED') problems.push(`failed: ${request.url()} ${reason}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await signIn(page, base, t.key);
    // The sign-in page asks for a session before there is one (a 401 by design).
    problems.length = 0;
    return { page, problems };
  }

  test('the page headers', async () => {
    const page = await t.request({ method: 'GET', url: `/images/${imageId}`, headers: { accept: 'text/html' } });
    assert.equal(page.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(page.headers['cross-origin-embedder-policy'], 'require-corp');
    const worker = await t.request({ method: 'GET', url: '/assets/segment-worker.js' });
    assert.equal(worker.headers['cross-origin-embedder-policy'], 'require-corp');
  });

  test('the gallery loads its thumbnails, isolated', async () => {
    const { page, problems } = await watched();
    await page.goto(`${base}/projects/${projectId}/images`);
    const loaded = () => page.locator('.tile img').evaluateAll((images) => images.filter((i) => (i as unknown as { complete: boolean; naturalWidth: number }).complete && (i as unknown as { naturalWidth: number }).naturalWidth > 0).length);
    const until = Date.now() + 60_000;
    while ((await loaded()) < 4 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await loaded(), 4, 'every thumbnail is drawn');
    assert.equal(await page.evaluate('crossOriginIsolated'), true);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('the image view loads its image and runs the decoder on several threads', async () => {
    const { page, problems } = await watched();
    await page.goto(`${base}/images/${imageId}`);
    await page.locator('.stage svg > g > image').waitFor();
    assert.equal(await page.evaluate('crossOriginIsolated'), true);
    await page.getByRole('button', { name: 'Segment' }).click();
    await page.getByRole('status').filter({ hasText: 'click inside an object' }).waitFor({ timeout: 180_000 });
    const m = (await page.evaluate(`(() => { const m = document.querySelector('.stage svg > g').getScreenCTM(); return { a: m.a, e: m.e, f: m.f }; })()`)) as { a: number; e: number; f: number };
    await page.mouse.click(m.e + m.a * 160, m.f + m.a * 120);
    await page.locator('.segment-mask').waitFor();
    const status = (await page.locator('.save-state').textContent()) ?? '';
    const threads = Math.max(1, Math.min(4, (await page.evaluate('navigator.hardwareConcurrency')) as number));
    assert.match(status, new RegExp(`mask in \\d+ ms \\(${threads} threads?\\)`));
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('without the headers (stripped on the way) the decoder keeps to one thread', async () => {
    const { page, problems } = await watched();
    await page.route('**/*', async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['cross-origin-opener-policy'];
      delete headers['cross-origin-embedder-policy'];
      await route.fulfill({ response, headers });
    });
    await page.goto(`${base}/images/${imageId}`);
    await page.locator('.stage svg > g > image').waitFor();
    assert.equal(await page.evaluate('crossOriginIsolated'), false);
    await page.getByRole('button', { name: 'Segment' }).click();
    await page.getByRole('status').filter({ hasText: 'click inside an object' }).waitFor({ timeout: 180_000 });
    const m = (await page.evaluate(`(() => { const m = document.querySelector('.stage svg > g').getScreenCTM(); return { a: m.a, e: m.e, f: m.f }; })()`)) as { a: number; e: number; f: number };
    await page.mouse.click(m.e + m.a * 160, m.f + m.a * 120);
    await page.locator('.segment-mask').waitFor();
    assert.match((await page.locator('.save-state').textContent()) ?? '', /mask in \d+ ms \(1 thread\)/);
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
