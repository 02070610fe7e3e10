// The web annotation editor on one image with 1,000 polygons (12 points each), in Chromium at
// 1280×800: frame times while the mouse drags one vertex for about two seconds, then while it pans
// the zoomed-in view for two seconds, from requestAnimationFrame deltas; and how many shapes the
// page holds when zoomed in (the rest are culled). The target is 16 ms a frame (60 frames a second).
//
//   node --import tsx bench/web-editor.ts
//
// Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH). See bench/README.md.
import type { AnnotationObject } from '../src/formats/canonical.ts';
import { launchChromium } from '../test/helpers/chromium.ts';
import { dialects } from '../test/helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../test/helpers/factories.ts';
import { picture } from '../test/helpers/pictures.ts';
import { startTestApp } from '../test/helpers/test-app.ts';

const N = Number(process.env.N ?? 1000);
const WIDTH = 1920;
const HEIGHT = 1080;

const t = await startTestApp(dialects[0]!);
const projectId = await newProject(t.ctx, { title: 'Crowded', classes: [{ title: 'car', shape: 'polygon', color: '#E53935' }] });
const ds = await newDataset(t.ctx, projectId, 'all');
// A grid of 12-point rings (40 across, 25 down) filling the image.
const objects: AnnotationObject[] = [];
for (let i = 0; i < N; i += 1) {
  const cx = 24 + (i % 40) * 47;
  const cy = 21 + Math.floor(i / 40) * 42;
  const exterior = Array.from({ length: 12 }, (_, k): [number, number] => [Math.round(cx + 18 * Math.cos((k * Math.PI) / 6)), Math.round(cy + 16 * Math.sin((k * Math.PI) / 6))]);
  objects.push({ classTitle: 'car', description: '', tags: [], bitmap: null, points: { exterior, interior: [] } });
}
const image = await newImage(t.ctx, ds, { name: 'crowded.png', bytes: await picture(WIDTH, HEIGHT, { seed: 7 }), width: WIDTH, height: HEIGHT, objects });
const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
const browser = await launchChromium();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
await page.goto(`${base}/`);
await page.getByLabel('API key').fill(t.key);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('heading', { name: 'Projects' }).waitFor();
let t0 = Date.now();
await page.goto(`${base}/images/${image.id}`);
await page.locator('.stage svg .object').first().waitFor();
await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
console.log(`image view with ${N} polygons drawn after ${Date.now() - t0} ms; ${await page.locator('.stage svg .objects > *').count()} shapes in the page`);

const transform = async () => (await page.evaluate(`(() => { const m = document.querySelector('.stage svg > g').getScreenCTM(); return { a: m.a, e: m.e, f: m.f }; })()`)) as { a: number; e: number; f: number };
// Frame times from requestAnimationFrame deltas; the long frames (over 50 ms) split by the browser's
// long-animation-frame entries into script and rendering (style, layout, paint).
const startFrames = () =>
  page.evaluate(`window.__frames = []; window.__stop = false; window.__long = [];
    window.__observer?.disconnect();
    window.__observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push({ duration: e.duration, script: e.scripts.reduce((s, x) => s + x.duration, 0), render: e.startTime + e.duration - e.renderStart }); });
    window.__observer.observe({ type: 'long-animation-frame' });
    (function tick(last){ requestAnimationFrame((now) => { window.__frames.push(now - last); if (!window.__stop) tick(now); }); })(performance.now())`);
async function stopFrames(label: string): Promise<void> {
  const frames = (await page.evaluate('window.__stop = true; window.__frames')) as number[];
  frames.sort((a, b) => a - b);
  const q = (p: number) => frames[Math.min(frames.length - 1, Math.floor(frames.length * p))]!.toFixed(1);
  // A frame of more than 20 ms missed a refresh of a 60 Hz screen.
  const over = frames.filter((f) => f > 20).length;
  const long = (await page.evaluate('window.__long')) as { duration: number; script: number; render: number }[];
  const sum = (pick: (l: (typeof long)[number]) => number) => long.reduce((s, l) => s + pick(l), 0).toFixed(0);
  console.log(`${label}: ${frames.length} frames, median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${frames.at(-1)!.toFixed(1)} ms, ${over} over 20 ms (missed); long frames ${long.length}: ${sum((l) => l.duration)} ms, of which script ${sum((l) => l.script)} ms, rendering ${sum((l) => l.render)} ms`);
}

// Select the polygon in the middle (index 520: column 0, row 13), then drag its first vertex about.
const m = await transform();
const screen = (x: number, y: number): [number, number] => [m.e + m.a * x, m.f + m.a * y];
const target = objects[520]!.points.exterior;
const [cx, cy] = [24 + (520 % 40) * 47, 21 + Math.floor(520 / 40) * 42];
await page.mouse.click(...screen(cx, cy));
await page.getByRole('heading', { name: /Selected: car/ }).waitFor();
const [vx = 0, vy = 0] = target[0]!;
await page.mouse.move(...screen(vx, vy));
await page.mouse.down();
await startFrames();
t0 = Date.now();
for (let i = 0; Date.now() - t0 < 2000; i += 1) {
  await page.mouse.move(...screen(vx + 30 * Math.sin(i / 10), vy + 20 * Math.cos(i / 13)));
  await page.waitForTimeout(8);
}
await page.mouse.up();
await stopFrames(`drag a vertex for ${Date.now() - t0} ms`);

/** Pans with the middle button for two seconds, the mouse going back and forth. */
async function pan(label: string): Promise<void> {
  await page.mouse.move(640, 500);
  await page.mouse.down({ button: 'middle' });
  await startFrames();
  const start = Date.now();
  for (let i = 0; Date.now() - start < 2000; i += 1) {
    await page.mouse.move(640 - 400 * Math.sin(i / 20), 500 - 200 * Math.sin(i / 31));
    await page.waitForTimeout(8);
  }
  await page.mouse.up({ button: 'middle' });
  await stopFrames(`${label} for ${Date.now() - start} ms`);
}

await page.keyboard.press('Escape');
await page.keyboard.press('Escape');
await pan('pan the whole image (all shapes in view)');
await page.keyboard.press('0');
// Zoomed in: most shapes are out of view and culled.
for (let i = 0; i < 6; i += 1) await page.keyboard.press('+');
await page.waitForTimeout(300);
console.log(`zoomed to ${await page.getByLabel('Zoom').textContent()}: ${await page.locator('.stage svg .objects > *').count()} shapes in the page`);
await pan('pan the zoomed view');
console.log(`after panning: ${await page.locator('.stage svg .objects > *').count()} shapes in the page`);
await browser.close();
await t.close();
