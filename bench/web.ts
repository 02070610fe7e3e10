// The web interface in Chromium at 1280×800 over one dataset of N images (100,000 unless N says), each
// with one polygon (so every tile also reads and draws its annotation), each figure against its target:
//
// - first thumbnails visible after opening the gallery (a fresh browser cache each run): < 1.5 s;
// - <img> elements in the page at every scroll position while scrolling from top to bottom: <= 300;
// - image-list requests while scrolling to the end: as many as the pages the scrolled range spans,
//   none asked twice (keyset pages: each page's cursor is asked for once);
// - an image with 1,000 polygons drawn in the image view (from the navigation to the frame after the
//   SVG holds all 1,000 shapes; median of RUNS): < 200 ms.
//
// Also reported, without a target: the frame times while the wheel scrolls, and a jump to the middle.
//
//   N=100000 node --import tsx bench/web.ts
//   node --import tsx bench/web.ts --only polygons   # the polygon measure alone (no gallery of N images)
//
// Other settings: RUNS (7), POLYGONS (1000), VERTICES (24 a polygon), STEP (8: screens a scroll step).
// Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH). The exit code is 0 only when every target
// passes. See bench/README.md.
import type { Page } from 'playwright-core';
import { serializeObjects } from '../src/formats/canonical.ts';
import * as images from '../src/repositories/images.repository.ts';
import { launchChromium } from '../test/helpers/chromium.ts';
import { dialects } from '../test/helpers/dialects.ts';
import { hashOf, newDataset, newImage, newProject } from '../test/helpers/factories.ts';
import { picture } from '../test/helpers/pictures.ts';
import { startTestApp } from '../test/helpers/test-app.ts';
import { fmt, verdict } from './harness.ts';

/** `--only polygons` runs the image view's measure alone: the N images are then not even seeded. */
const onlyAt = process.argv.indexOf('--only');
const ONLY = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
if (ONLY !== undefined && ONLY !== 'polygons') throw new Error(`--only takes "polygons", not ${ONLY}`);
const GALLERY = ONLY === undefined;
const N = GALLERY ? Number(process.env.N ?? 100_000) : 0;
const RUNS = Number(process.env.RUNS ?? 7);
const POLYGONS = Number(process.env.POLYGONS ?? 1000);
const VERTICES = Number(process.env.VERTICES ?? 24);
const STEP_SCREENS = Number(process.env.STEP ?? 8);
/** The gallery's page of images (web/image-list.ts). */
const PAGE = 500;
/** The grid's row (tile, caption and gap: web/components/virtual-grid.tsx) and its scroller's padding (styles.css). */
const ROW = 204;
const PADDING = 16;
const TARGET = { firstThumbnailsMs: 1500, maxImgElements: 300, polygonDrawMs: 200 };

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const ms = (n: number) => `${fmt(n)} ms`;

// --- Seed: N small images in one dataset, and apart (so the image view's position search stays
// small) one large image that the API gives POLYGONS polygons.
const t = await startTestApp(dialects[0]!);
const ctx = t.ctx;
const projectId = await newProject(ctx, { title: 'Big', classes: [{ title: 'car', shape: 'polygon', color: '#E53935' }] });
const ds = await newDataset(ctx, projectId, 'all');
const pics = await Promise.all([0, 1, 2, 3].map((s) => picture(160, 120, { seed: s })));
const hashes: { hash: string; size: number }[] = [];
for (const p of pics) {
  const hash = hashOf(p);
  await ctx.blobs.putBytes(hash, p);
  await images.ensureBlob(ctx.db.kysely, { hash, size: p.length, mediaType: 'image/png', width: 160, height: 120 });
  hashes.push({ hash, size: p.length });
}
let t0 = Date.now();
const objects = serializeObjects([{ classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior: [[10, 10], [100, 20], [80, 90]], interior: [] } }]);
for (let i = 0; i < N; i += 5000) {
  const batch: images.NewImageInput[] = [];
  for (let j = i; j < Math.min(N, i + 5000); j += 1) {
    const h = hashes[j % 4]!;
    batch.push({ datasetId: ds, projectId, name: `img_${String(j).padStart(6, '0')}.png`, hash: h.hash, size: h.size, width: 160, height: 120, description: '', objectsJson: objects });
  }
  await ctx.db.kysely.transaction().execute((trx) => images.insertImages(trx, batch));
}
if (GALLERY) console.log(`seeded ${fmt(N)} images in ${ms(Date.now() - t0)}`);

const denseProject = await newProject(ctx, { title: 'Dense', classes: [{ title: 'cell', shape: 'polygon', color: '#1E88E5' }] });
const denseDataset = await newDataset(ctx, denseProject, 'slides');
const DENSE = { width: 1600, height: 1200 };
const dense = await newImage(ctx, denseDataset, { name: 'dense.png', bytes: await picture(DENSE.width, DENSE.height, { seed: 9 }), ...DENSE });
{
  // Irregular rings scattered over the image, from a fixed seed (the same drawing every run).
  let seed = 42;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const polygons = Array.from({ length: POLYGONS }, () => {
    const cx = 40 + random() * (DENSE.width - 80);
    const cy = 40 + random() * (DENSE.height - 80);
    const exterior = Array.from({ length: VERTICES }, (_, k) => {
      const angle = (k / VERTICES) * 2 * Math.PI;
      const radius = 12 + random() * 26;
      return [Math.round(cx + radius * Math.cos(angle)), Math.round(cy + radius * Math.sin(angle))];
    });
    return { classTitle: 'cell', description: '', tags: [], points: { exterior, interior: [] } };
  });
  const put = await t.request({ method: 'PUT', url: `/v2/images/${dense.id}/annotation`, payload: { description: '', tags: [], objects: polygons } });
  if (put.statusCode !== 200) throw new Error(`seeding the polygons: ${put.statusCode} ${put.body}`);
  console.log(`seeded one ${DENSE.width}×${DENSE.height} image with ${POLYGONS} polygons of ${VERTICES} vertices through PUT /v2/images/:id/annotation (${fmt(put.body.length / 1024)} KiB answer)`);
}

const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
const browser = await launchChromium();
const viewport = { width: 1280, height: 800 };
const signedIn = await browser.newContext({ viewport });
{
  const page = await signedIn.newPage();
  await page.goto(`${base}/`);
  await page.getByLabel('API key').fill(t.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  await page.close();
}
const cookies = await signedIn.cookies();
/** A page of a new context (an empty browser cache) that carries the session cookie. */
async function freshPage(): Promise<Page> {
  // The measures run as page scripts given as text, which the page's policy would refuse.
  const context = await browser.newContext({ viewport, bypassCSP: true });
  await context.addCookies(cookies);
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  return page;
}
const gallery = `${base}/projects/${projectId}/images`;
const results: boolean[] = [];

// --- 1. First thumbnails: from the navigation (the page's time origin) to the first decoded thumbnail.
if (GALLERY) {
  const runs: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const page = await freshPage();
    await page.goto(gallery);
    const shown = await page.waitForFunction(`(() => { const img = [...document.querySelectorAll('.tile img')].find((i) => i.complete && i.naturalWidth > 0); return img ? performance.now() : false; })()`, null, { polling: 'raf' });
    runs.push((await shown.jsonValue()) as number);
    await page.context().close();
  }
  console.log(`first thumbnails visible after opening the gallery: ${runs.map(ms).join(', ')} (the first run makes the thumbnails)`);
  results.push(verdict('first thumbnails', Math.max(...runs) < TARGET.firstThumbnailsMs, `worst ${ms(Math.max(...runs))}, median ${ms(median(runs))} (target < ${ms(TARGET.firstThumbnailsMs)})`));
}

// --- 2. Frame times while the wheel scrolls, and a jump to the middle (informational).
if (GALLERY) {
  const page = await freshPage();
  await page.goto(gallery);
  await page.locator('.tile img').first().waitFor();
  await page.evaluate(`window.__frames = []; (function tick(last){ requestAnimationFrame((now) => { window.__frames.push(now - last); tick(now); }); })(performance.now())`);
  await page.mouse.move(700, 400);
  for (let i = 0; i < 60; i += 1) {
    await page.mouse.wheel(0, 400);
    await page.waitForTimeout(16);
  }
  await page.waitForTimeout(300);
  const frames = ((await page.evaluate('window.__frames')) as number[]).sort((a, b) => a - b);
  console.log(
    `wheel scroll: ${frames.length} frames, median ${frames[frames.length >> 1]!.toFixed(1)} ms, p95 ${frames[Math.floor(frames.length * 0.95)]!.toFixed(1)} ms, max ${frames.at(-1)!.toFixed(1)} ms; DOM tiles ${await page.locator('.grid > li').count()}; DOM nodes ${await page.evaluate('document.getElementsByTagName("*").length')}`,
  );
  t0 = Date.now();
  await page.evaluate(`(() => { const el = document.querySelector('.grid-scroller'); el.scrollTo({ top: el.scrollHeight / 2 }); })()`);
  await page.locator('.tile-link', { hasText: `img_${String(Math.floor(N / 2)).padStart(6, '0').slice(0, 3)}` }).first().waitFor();
  console.log(`jump to the middle: tiles there after ${ms(Date.now() - t0)}; heap ${fmt(((await page.evaluate('performance.memory.usedJSHeapSize')) as number) / 1e6)} MB`);
  await page.context().close();
}

// --- 3. Scrolling from top to bottom, STEP screens a step, each step waiting until its tiles are in.
if (GALLERY) {
  const page = await freshPage();
  const lists: string[] = [];
  let counts = 0;
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname !== '/v2/images') return;
    // The sidebar's counts ask for one item; the grid's pages for PAGE.
    if (url.searchParams.get('limit') === String(PAGE)) lists.push(url.searchParams.get('cursor') ?? '(first)');
    else counts += 1;
  });
  await page.goto(gallery);
  await page.locator('.tile img').first().waitFor();
  const height = (await page.evaluate(`document.querySelector('.grid-scroller').scrollHeight`)) as number;
  const screen = (await page.evaluate(`document.querySelector('.grid-scroller').clientHeight`)) as number;
  let maxImages = 0;
  let steps = 0;
  let beyond = 0;
  let lastShown = 0;
  t0 = Date.now();
  for (let top = 0; ; top = Math.min(height, top + screen * STEP_SCREENS)) {
    await page.evaluate(`document.querySelector('.grid-scroller').scrollTo({ top: ${top} })`);
    // Right after the scroll (before the grid has caught up) and once its tiles are in.
    maxImages = Math.max(maxImages, (await page.evaluate('document.images.length')) as number);
    lastShown = (await (await page.waitForFunction(
      `(() => {
        const el = document.querySelector('.grid-scroller');
        const tiles = [...document.querySelectorAll('.grid > li')];
        // A row of tiles at the top of the viewport: the grid has drawn this position.
        const covers = tiles.some((li) => parseFloat(li.style.top) <= el.scrollTop && parseFloat(li.style.top) + ${ROW} > el.scrollTop - ${PADDING});
        if (!covers || document.querySelector('.grid > li.pending')) return false;
        return Math.max(...tiles.map((li) => Number(li.getAttribute('aria-posinset'))));
      })()`,
      null,
      { polling: 'raf' },
    )).jsonValue()) as number;
    maxImages = Math.max(maxImages, (await page.evaluate('document.images.length')) as number);
    // The pages the range scrolled so far spans: no page past them may have been asked for.
    if (lists.length > Math.ceil(lastShown / PAGE)) beyond += 1;
    steps += 1;
    if (top >= height || lastShown >= N) break;
  }
  const seconds = (Date.now() - t0) / 1000;
  const spanned = Math.ceil(N / PAGE);
  const twice = lists.length - new Set(lists).size;
  console.log(`scrolled ${fmt(height)} px to the end in ${steps} steps of ${fmt(screen * STEP_SCREENS)} px (${fmt(seconds, 1)} s): ${lists.length} image-list requests of ${PAGE}, ${counts} sidebar count requests`);
  results.push(verdict('<img> elements', maxImages <= TARGET.maxImgElements, `at most ${maxImages} at any scroll position (target <= ${TARGET.maxImgElements})`));
  results.push(
    verdict(
      'pages fetched while scrolling',
      lastShown === N && lists.length === spanned && twice === 0 && beyond === 0,
      `${lists.length} requests for the ${spanned} pages of ${fmt(N)} images (the last tile shown: ${fmt(lastShown)}); ${twice} asked twice; ${beyond} steps with a page asked beyond the range shown`,
    ),
  );
  await page.context().close();
}

// --- 4. The image with POLYGONS polygons: from the in-app navigation (the gallery of its project is
// open, as when a tile is clicked) to the frame after the SVG holds every shape, fitted to the stage.
// Where the time goes: when the API's answers are in, when the shapes reach the DOM, when the view is
// fitted, how many times the layer rewrote every shape, and Chromium's long animation frames (over
// 50 ms) of the run. Two floors say what Chromium alone needs here: the same image and polygons
// written as one SVG string (no framework), and that with the view's list of the objects beside it.
/** Collects the long animation frames from now; the function it answers sums them once delivered. */
const LONG_FRAMES = `(() => {
  const frames = [];
  const observer = new PerformanceObserver((list) => frames.push(...list.getEntries()));
  observer.observe({ type: 'long-animation-frame' });
  return () => new Promise((resolve) => setTimeout(() => {
    observer.disconnect();
    const sum = (f) => frames.reduce((total, e) => total + f(e), 0);
    resolve({
      frames: frames.length,
      script: sum((e) => (e.renderStart || e.startTime + e.duration) - e.startTime),
      styleLayoutPaint: sum((e) => (e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0)),
    });
  }, 200));
})()`;
/** Calls done(ms since start) just after the frame that paints once ready() holds. */
const AFTER_PAINT = `(start, ready, done) => (function frame() {
  requestAnimationFrame(() => {
    if (!ready()) return frame();
    // This callback's frame paints what is ready; the message comes after that paint.
    const channel = new MessageChannel();
    channel.port1.onmessage = () => done(performance.now() - start);
    channel.port2.postMessage(null);
  });
})()`;
interface LongFrames {
  frames: number;
  script: number;
  styleLayoutPaint: number;
}
interface DrawRun {
  total: number;
  api: number;
  shapes: number;
  /** The first frame that painted all the shapes, fitted or not. */
  firstPaint: number;
  fitted: number;
  rewrites: number;
  long: LongFrames;
}

async function drawRuns(page: Page): Promise<DrawRun[]> {
  const runs: DrawRun[] = [];
  for (let run = 0; run < RUNS + 1; run += 1) {
    const measured = (await page.evaluate(
      `new Promise((resolve) => {
        const long = ${LONG_FRAMES};
        performance.clearResourceTimings();
        const start = performance.now();
        let shapesAt = 0, fittedAt = 0, rewrites = 0;
        const count = () => document.querySelectorAll('.stage svg .object').length;
        const fitted = () => (document.querySelector('.stage svg > g')?.getAttribute('transform') ?? 'translate(0 0) scale(1)') !== 'translate(0 0) scale(1)';
        const observer = new MutationObserver((records) => {
          if (!shapesAt && count() >= ${POLYGONS}) shapesAt = performance.now() - start;
          if (shapesAt && !fittedAt && fitted()) fittedAt = performance.now() - start;
          // The stroke width follows the zoom: a change of it is a pass of the layer over every shape.
          if (records.some((r) => r.attributeName === 'stroke-width')) rewrites += 1;
        });
        observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['stroke-width', 'transform'] });
        history.pushState(null, '', '/images/${dense.id}');
        dispatchEvent(new PopStateEvent('popstate'));
        let firstPaint = 0;
        (${AFTER_PAINT})(start, () => count() >= ${POLYGONS}, (at) => (firstPaint = at));
        (${AFTER_PAINT})(start, () => count() >= ${POLYGONS} && fitted(), async (total) => {
          observer.disconnect();
          const json = performance.getEntriesByType('resource').filter((e) => e.name.includes('/v2/') && !e.name.endsWith('/file') && e.startTime >= start);
          resolve({ total, api: Math.max(...json.map((e) => e.responseEnd)) - start, shapes: shapesAt, firstPaint, fitted: fittedAt, rewrites, long: await long() });
        });
      })`,
    )) as DrawRun;
    if (run > 0) runs.push(measured); // the first run warms the server's and the page's caches
    await page.goBack();
    await page.locator('.tile-link').first().waitFor();
  }
  return runs;
}

/** The floor: the stage's size, the image fitted in it, the polygons as the layer draws them (and the list). */
async function floorRuns(page: Page, withList: boolean): Promise<{ total: number; long: LongFrames }[]> {
  const annotation = (await (await page.request.get(`${base}/v2/images/${dense.id}/annotation`)).json()) as { objects: { id: number; points: { exterior: number[][] } }[] };
  const shapes = annotation.objects.map((o) => `<polygon fill="#1E88E5" stroke="#1E88E5" fill-opacity="0.35" points="${o.points.exterior.map((p) => p.join(',')).join(' ')}"/>`).join('');
  const rows = annotation.objects.map((o) => `<li tabindex="0" data-object-id="${o.id}"><span class="swatch" style="background: #1E88E5"></span><span>cell</span><span class="object-id">#${o.id}</span></li>`).join('');
  const list = withList ? `<aside class="details" style="position: fixed; right: 0; top: 100px; width: 300px; height: 650px; z-index: 10"><section><h2>Objects</h2><ul class="object-list">${rows}</ul></section></aside>` : '';
  const scale = Math.min(980 / DENSE.width, 650 / DENSE.height);
  const markup = `<div style="position: fixed; left: 0; top: 100px; width: 980px; height: 650px; background: #2a2f36; z-index: 10"><svg width="980" height="650"><g transform="scale(${scale})" stroke-width="${1.5 / scale}"><image href="/v2/images/${dense.id}/file" width="${DENSE.width}" height="${DENSE.height}"/>${shapes}</g></svg></div>${list}`;
  await page.evaluate(`window.__floor = ${JSON.stringify(markup)}`);
  const runs: { total: number; long: LongFrames }[] = [];
  for (let run = 0; run < RUNS + 1; run += 1) {
    const measured = (await page.evaluate(
      `new Promise((resolve) => {
        const long = ${LONG_FRAMES};
        const start = performance.now();
        const box = document.createElement('div');
        box.innerHTML = window.__floor;
        document.body.append(box);
        (${AFTER_PAINT})(start, () => true, async (total) => {
          resolve({ total, long: await long() });
          box.remove();
        });
      })`,
    )) as { total: number; long: LongFrames };
    if (run > 0) runs.push(measured);
    await page.waitForTimeout(100);
  }
  return runs;
}

{
  const page = await freshPage();
  await page.goto(`${base}/projects/${denseProject}/images`);
  await page.locator('.tile img').first().waitFor();
  const runs = await drawRuns(page);
  const floor = await floorRuns(page, false);
  const floorWithList = await floorRuns(page, true);
  const med = <T>(of: T[], f: (r: T) => number) => median(of.map(f));
  const total = med(runs, (r) => r.total);
  console.log(`${POLYGONS} polygons in the image view, ${RUNS} runs: ${runs.map((r) => fmt(r.total)).join(', ')} ms`);
  console.log(
    `  where the time goes (medians): API answers in by ${ms(med(runs, (r) => r.api))}; all ${POLYGONS} shapes in the DOM at ${ms(med(runs, (r) => r.shapes))}; first frame painted with every shape at ${ms(med(runs, (r) => r.firstPaint))}; fitted to the stage at ${ms(med(runs, (r) => r.fitted))}; painted at ${ms(total)}; ${med(runs, (r) => r.rewrites)} passes rewriting every shape's stroke width`,
  );
  console.log(`  long animation frames (medians of each run's sums): ${med(runs, (r) => r.long.frames)} frames; tasks and scripts ${ms(med(runs, (r) => r.long.script))}, style + layout + paint ${ms(med(runs, (r) => r.long.styleLayoutPaint))}`);
  for (const [label, of] of [
    ['floor: the same SVG as one string, no framework', floor],
    [`floor with the list of the ${POLYGONS} objects beside it`, floorWithList],
  ] as const) {
    console.log(`  ${label}: ${of.map((r) => fmt(r.total)).join(', ')} ms; median ${ms(med(of, (r) => r.total))}; long frames' style + layout + paint ${ms(med(of, (r) => r.long.styleLayoutPaint))}`);
  }
  results.push(verdict(`${POLYGONS} polygons drawn`, total < TARGET.polygonDrawMs, `median ${ms(total)} (target < ${ms(TARGET.polygonDrawMs)})`));
  await page.context().close();
}

await browser.close();
await t.close();
process.exitCode = results.every(Boolean) ? 0 : 1;
