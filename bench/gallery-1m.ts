// The gallery of one dataset of a million images in Chromium at 1280×800, and GET /v2/images by
// position at ten million rows on both databases.
//
//   node --import tsx bench/gallery-1m.ts browser   [--images 1000000] [--floor 10000]
//   node --import tsx bench/gallery-1m.ts positions [--rows 10000000] [--db sqlite|postgres|both]
//
// browser: seeds (INSERT … SELECT, one shared picture, a polygon on every third image) a dataset of
// --images, and a floor dataset of --floor images in the same database; in each, measures the first
// thumbnails from the gallery's address, then jumps of the scrollbar to 50 %, 99 % and the end: the
// time until the tiles there show their captions and their thumbnails, the longest main-thread task
// meanwhile (PerformanceObserver 'longtask'), and the tiles and elements in the page. Ratio: the 1M
// figure over the floor's.
// positions: seeds --rows images in one dataset, then times a page of 100 at offsets 50 %, 99 % and
// the last page (the id blocks), against the first page (floor), and the same offsets of a filtered
// list (a name prefix every image has: a plain OFFSET), on each database. Needs PostgreSQL at
// 127.0.0.1:5432 for `postgres`. See bench/README.md.
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/helpers/chromium.ts';
import { bulkImages } from '../test/helpers/bulk-images.ts';
import { dialects } from '../test/helpers/dialects.ts';
import { newDataset, newProject, polygon } from '../test/helpers/factories.ts';
import { picture } from '../test/helpers/pictures.ts';
import { type TestApp, startTestApp } from '../test/helpers/test-app.ts';
import { serializeObjects } from '../src/formats/canonical.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { images: { type: 'string', default: '1000000' }, floor: { type: 'string', default: '10000' }, rows: { type: 'string', default: '10000000' }, db: { type: 'string', default: 'both' } },
});
const part = positionals[0] ?? 'browser';
const fmt = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 0 });

async function seed(t: TestApp, title: string, count: number): Promise<{ projectId: number; datasetId: number }> {
  const projectId = await newProject(t.ctx, { title, classes: [{ title: 'car', shape: 'polygon', color: '#E53935' }] });
  const datasetId = await newDataset(t.ctx, projectId, 'frames');
  const started = Date.now();
  const objectsJson = serializeObjects([polygon('car', [[20, 20], [140, 30], [120, 100], [30, 90]])]);
  await bulkImages(t.ctx, { datasetId, count, bytes: await picture(160, 120, { seed: 5 }), width: 160, height: 120, objectsJson, objectsEvery: 3 });
  console.log(`# seeded ${fmt(count)} images in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { projectId, datasetId };
}

interface GalleryFigures {
  first: number;
  jumps: { at: string; captions: number; thumbnails: number; longest: number }[];
  tiles: number;
  elements: number;
}

async function measureGallery(page: Page, base: string, scope: { projectId: number; datasetId: number }, count: number): Promise<GalleryFigures> {
  const name = (p: number) => `img-${String(p).padStart(7, '0')}.png`;
  const started = Date.now();
  await page.goto(`${base}/projects/${scope.projectId}/images?dataset=${scope.datasetId}`);
  await page.waitForFunction(`(() => { const i = document.querySelector('.tile img'); return i && i.complete; })()`, undefined, { polling: 'raf', timeout: 60_000 });
  const first = Date.now() - started;
  await page.evaluate(`window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' })`);
  const jumps: GalleryFigures['jumps'] = [];
  for (const [at, fraction] of [['50 %', 0.5], ['99 %', 0.99], ['end', 1]] as const) {
    const target = Math.min(count - 1, Math.floor(count * fraction));
    await page.evaluate('window.__long = []');
    const t0 = Date.now();
    await page.evaluate(`(() => { const s = document.querySelector('.grid-scroller'); s.scrollTop = (s.scrollHeight - s.clientHeight) * ${fraction}; })()`);
    // The tiles of the place jumped to: a caption within a few rows of it, then its thumbnail.
    const near = `[...document.querySelectorAll('.tile')].filter((t) => { const c = t.querySelector('.caption'); if (!c) return false; const p = Number(c.textContent.slice(4, 11)); return Math.abs(p - ${target}) < 60; })`;
    await page.waitForFunction(`${near}.length > 0`, undefined, { polling: 'raf', timeout: 30_000 });
    const captions = Date.now() - t0;
    await page.waitForFunction(`${near}.some((t) => { const i = t.querySelector('img'); return i && i.complete; })`, undefined, { polling: 'raf', timeout: 30_000 });
    const thumbnails = Date.now() - t0;
    await page.waitForTimeout(300);
    const long = (await page.evaluate('window.__long')) as number[];
    jumps.push({ at, captions, thumbnails, longest: Math.max(0, ...long) });
    if (at === 'end') await page.locator('.tile .caption', { hasText: name(count - 1) }).waitFor();
  }
  const tiles = (await page.evaluate(`document.querySelectorAll('li.tile').length`)) as number;
  const elements = (await page.evaluate(`document.querySelectorAll('*').length`)) as number;
  return { first, jumps, tiles, elements };
}

async function browserPart(): Promise<void> {
  const images = Number(args.images);
  const floorImages = Number(args.floor);
  const t = await startTestApp(dialects[0]!);
  const big = await seed(t, 'A million frames', images);
  const small = await seed(t, 'Floor', floorImages);
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })).newPage();
  await page.goto(`${base}/`);
  await page.getByLabel('API key').fill(t.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  const floor = await measureGallery(page, base, small, floorImages);
  const figures = await measureGallery(page, base, big, images);
  console.log(`| measure | ${fmt(images)} images | floor (${fmt(floorImages)}) | ratio | target |`);
  console.log('| --- | --- | --- | --- | --- |');
  console.log(`| first thumbnails | ${figures.first} ms | ${floor.first} ms | ${(figures.first / floor.first).toFixed(2)} | < 1.5 s: ${figures.first < 1500 ? 'pass' : 'fail'} |`);
  figures.jumps.forEach((j, i) => {
    const f = floor.jumps[i]!;
    console.log(`| jump to ${j.at}: tiles / thumbnails | ${j.captions} / ${j.thumbnails} ms | ${f.captions} / ${f.thumbnails} ms | ${(j.thumbnails / f.thumbnails).toFixed(2)} | < 1 s: ${j.thumbnails < 1000 ? 'pass' : 'fail'} |`);
    console.log(`| longest task, jump to ${j.at} | ${j.longest.toFixed(0)} ms | ${f.longest.toFixed(0)} ms | | ≤ 50 ms: ${j.longest <= 50 ? 'pass' : 'fail'} |`);
  });
  console.log(`| tiles / elements in the page | ${figures.tiles} / ${figures.elements} | ${floor.tiles} / ${floor.elements} | | bounded |`);
  await browser.close();
  await t.close();
}

async function positionsPart(): Promise<void> {
  const rows = Number(args.rows);
  const chosen = dialects.filter((d) => args.db === 'both' || d.name === args.db);
  console.log('| database | rows | first page (floor) | offset 50 % | offset 99 % | last page | ratio (worst / floor) | filtered list (OFFSET) at 50 % / 99 % |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const dialect of chosen) {
    if (dialect.skip) {
      console.log(`# ${dialect.name} skipped: ${dialect.skip}`);
      continue;
    }
    const t = await startTestApp(dialect);
    const { datasetId } = await seed(t, `${fmt(rows)} rows`, rows);
    const time = async (query: string): Promise<number> => {
      const best: number[] = [];
      // Three times, different limits each so no kept page answers; the best counts.
      for (const limit of [100, 99, 98]) {
        const t0 = performance.now();
        const res = await t.request({ method: 'GET', url: `/v2/images?datasetId=${datasetId}&limit=${limit}&${query}` });
        if (res.statusCode !== 200) throw new Error(res.body);
        best.push(performance.now() - t0);
      }
      return Math.min(...best);
    };
    const floor = await time('count=true');
    const at = [await time(`offset=${Math.floor(rows / 2)}`), await time(`offset=${Math.floor(rows * 0.99)}`), await time(`offset=${rows - 100}`)];
    const filtered = [await time(`namePrefix=img-&offset=${Math.floor(rows / 2)}`), await time(`namePrefix=img-&offset=${Math.floor(rows * 0.99)}`)];
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    console.log(`| ${dialect.name} | ${fmt(rows)} | ${ms(floor)} | ${ms(at[0]!)} | ${ms(at[1]!)} | ${ms(at[2]!)} | ${(Math.max(...at) / floor).toFixed(2)} | ${ms(filtered[0]!)} / ${ms(filtered[1]!)} |`);
    await t.close();
  }
}

if (part === 'positions') await positionsPart();
else await browserPart();
