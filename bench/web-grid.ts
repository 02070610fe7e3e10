// The web gallery of one dataset of N images (100,000 unless N says) in Chromium at 1280×800: how
// soon the first tiles show, how many tiles and nodes the page holds, the frame times while the
// wheel scrolls, and how long a jump to the middle of the list takes (the pages before it are loaded
// in turn: keyset pages cannot be skipped).
//
//   N=100000 node --import tsx bench/web-grid.ts
//
// Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH). See bench/README.md.
import { chromium } from 'playwright-core';
import { serializeObjects } from '../src/formats/canonical.ts';
import * as images from '../src/repositories/images.repository.ts';
import { dialects } from '../test/helpers/dialects.ts';
import { hashOf, newDataset, newProject } from '../test/helpers/factories.ts';
import { picture } from '../test/helpers/pictures.ts';
import { startTestApp } from '../test/helpers/test-app.ts';

const N = Number(process.env.N ?? 100_000);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
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
console.log(`seeded ${N} in ${Date.now() - t0} ms`);
const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
await page.goto(`${base}/`);
await page.getByLabel('API key').fill(t.key);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('heading', { name: 'Projects' }).waitFor();
t0 = Date.now();
await page.goto(`${base}/projects/${projectId}/images`);
await page.locator('.tile img').first().waitFor();
console.log(`gallery first tiles after ${Date.now() - t0} ms; ${await page.locator('.grid > li').count()} tiles in DOM; total: ${await page.locator('.total').textContent()}`);
// Frame times while scrolling with the wheel.
await page.evaluate(`window.__frames = []; (function tick(last){ requestAnimationFrame((now) => { window.__frames.push(now - last); tick(now); }); })(performance.now())`);
await page.mouse.move(700, 400);
for (let i = 0; i < 60; i += 1) {
  await page.mouse.wheel(0, 400);
  await page.waitForTimeout(16);
}
await page.waitForTimeout(300);
const frames = (await page.evaluate('window.__frames')) as number[];
frames.sort((a, b) => a - b);
console.log(`wheel scroll: ${frames.length} frames, median ${frames[frames.length >> 1]!.toFixed(1)} ms, p95 ${frames[Math.floor(frames.length * 0.95)]!.toFixed(1)} ms, max ${frames.at(-1)!.toFixed(1)} ms; DOM tiles ${await page.locator('.grid > li').count()}; DOM nodes ${await page.evaluate('document.getElementsByTagName("*").length')}`);
t0 = Date.now();
await page.locator('.grid-scroller').evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }));
await page.locator('.tile-link', { hasText: `img_0${Math.floor(N / 2 / 1000)}` }).first().waitFor({ timeout: 120_000 });
console.log(`jump to the middle: tiles there after ${Date.now() - t0} ms; DOM tiles ${await page.locator('.grid > li').count()}; heap ${(((await page.evaluate('performance.memory.usedJSHeapSize')) as number) / 1e6).toFixed(0)} MB`);
await browser.close();
await t.close();
