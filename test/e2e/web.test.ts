// The web interface in a real Chromium, as a user goes through it: sign in with a key, see the
// projects with their counts, open a project's gallery (virtualised), filter it by class, open an
// image and check its drawing against the stored annotation, step with the keyboard, sign out.
// Every page is checked with axe-core (no serious or critical violation) and photographed.
// Without Chromium at CHROMIUM_PATH (default /usr/bin/chromium) the tests skip with a line that says so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import axe from 'axe-core';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import sharp from 'sharp';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { startTaskRunner } from '../../src/tasks/runner.ts';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const chromiumSkip = fs.existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}: web interface tests skipped`;
if (chromiumSkip) console.log(`# ${chromiumSkip}`);

/** Where the screenshots go; WEB_SCREENSHOTS names a folder to keep them in. */
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-shots');

/** A bitmap as Supervisely stores it: base64 of a zlib-compressed PNG (a filled disc). */
async function discBitmap(size: number): Promise<string> {
  const pixels = Buffer.alloc(size * size);
  for (let y = 0; y < size; y += 1) for (let x = 0; x < size; x += 1) pixels[y * size + x] = (x - size / 2) ** 2 + (y - size / 2) ** 2 < (size / 2) ** 2 ? 255 : 0;
  const png = await sharp(pixels, { raw: { width: size, height: size, channels: 1 } }).png().toBuffer();
  return zlib.deflateSync(png).toString('base64');
}

const WIDTH = 640;
const HEIGHT = 480;
/** The car with a hole (a window), whose drawing the test checks point by point. */
const CAR: AnnotationObject = {
  classTitle: 'car',
  description: '',
  tags: [],
  bitmap: null,
  points: {
    exterior: [[80, 200], [360, 190], [380, 330], [90, 340]],
    interior: [[[150, 220], [250, 220], [250, 270], [150, 270]]],
  },
};
const ROOF = polygon('car', [[420, 60], [560, 70], [540, 160], [430, 150]]);
const PERSON: AnnotationObject = { classTitle: 'person', description: '', tags: [], bitmap: null, points: { exterior: [[450, 220], [560, 430]], interior: [] } };
const LANE: AnnotationObject = { classTitle: 'lane', description: '', tags: [], bitmap: null, points: { exterior: [[0, 470], [300, 380], [639, 360]], interior: [] } };

async function checkAccessibility(page: Page, label: string): Promise<void> {
  await page.addScriptTag({ content: axe.source });
  // Functions run in the page are given as text: this program has no DOM types.
  const result = (await page.evaluate('axe.run(document)')) as axe.AxeResults;
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`),
    [],
    `accessibility of ${label}`,
  );
}

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

describe('the web interface in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId: number;
  let carImages: number[];
  let cityId: number;
  const BULK = 1200;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    const ctx = t.ctx;
    projectId = await newProject(ctx, {
      title: 'Street scenes',
      classes: [
        { title: 'car', shape: 'polygon', color: '#E53935' },
        { title: 'person', shape: 'rectangle', color: '#1E88E5' },
        { title: 'lane', shape: 'line', color: '#FDD835' },
        { title: 'puddle', shape: 'bitmap', color: '#00ACC1' },
      ],
    });
    await newProject(ctx, { title: 'Empty project', classes: [{ title: 'tree', shape: 'polygon', color: '#43A047' }] });
    const city = await newDataset(ctx, projectId, 'city');
    cityId = city;
    const bulk = await newDataset(ctx, projectId, 'highway');
    const rainy = await newTag(ctx, projectId, { title: 'rainy' });
    const puddle: AnnotationObject = { classTitle: 'puddle', description: '', tags: [], bitmap: { origin: [200, 380], data: await discBitmap(60) }, points: { exterior: [], interior: [] } };
    carImages = [];
    // 12 pictured images in `city`: the even ones with cars; every third one rainy.
    for (let i = 0; i < 12; i += 1) {
      const objects = i % 2 === 0 ? [CAR, ROOF, PERSON, LANE, puddle] : [PERSON, LANE];
      const image = await newImage(ctx, city, { name: `city_${String(i).padStart(3, '0')}.png`, bytes: await picture(WIDTH, HEIGHT, { seed: i }), width: WIDTH, height: HEIGHT, objects });
      if (i % 2 === 0) carImages.push(image.id);
      if (i % 3 === 0) await tagImage(ctx, image.id, rainy);
    }
    // Many images in `highway`, sharing a few pictures: the grid must not draw them all.
    const shared = await Promise.all([0, 1, 2, 3].map((seed) => picture(160, 120, { seed: seed + 20 })));
    for (let i = 0; i < BULK; i += 1) {
      await newImage(ctx, bulk, { name: `hw_${String(i).padStart(5, '0')}.png`, bytes: shared[i % 4], width: 160, height: 120, objects: i % 5 === 0 ? [LANE] : [] });
    }
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    // axe is added to the page as a script of its own, which the page's policy would refuse.
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('sign in with a key: the page keeps only an HttpOnly cookie', async () => {
    await page.goto(`${base}/`);
    await page.getByLabel('API key').waitFor();
    await checkAccessibility(page, 'the sign-in page');
    await shoot(page, 'sign-in');

    await page.getByLabel('API key').fill('ak_not-a-key-of-anybody-here-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'unknown or revoked' }).waitFor();

    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'annostore_session');
    assert.ok(session, 'a session cookie');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(await page.evaluate('document.cookie'), '', 'the page’s scripts cannot read it');
    const stored = String(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })'));
    assert.ok(!stored.includes(t.key), 'the key is in no storage of the page');
  });

  test('the projects list shows what each project holds and its classes in their colours', async () => {
    const card = page.locator('.project-card', { hasText: 'Street scenes' });
    await card.waitFor();
    assert.equal((await card.locator('.counts').textContent())?.replace(/\s+/g, ' '), `2 datasets · ${(12 + BULK).toLocaleString('en')} images · ${6 * 5 + 6 * 2 + BULK / 5} objects`);
    assert.deepEqual(await card.locator('.chip').allTextContents(), ['car', 'person', 'lane', 'puddle']);
    const carColor = await card.locator('.chip', { hasText: 'car' }).locator('.swatch').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor);
    assert.equal(carColor, 'rgb(229, 57, 53)');
    await checkAccessibility(page, 'the projects page');
    await shoot(page, 'projects');
  });

  test('the gallery draws only the tiles near the viewport, and filters by class from the sidebar into the URL', async () => {
    await page.getByRole('link', { name: 'Street scenes' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images`);
    await page.getByRole('status').filter({ hasText: `${(12 + BULK).toLocaleString('en')} images` }).waitFor();
    await page.locator('.tile img').first().waitFor();
    const drawn = await page.locator('.grid > li').count();
    assert.ok(drawn > 20 && drawn < 200, `${drawn} tiles in the DOM for ${12 + BULK} images`);
    // Far down the list, the tiles there are drawn (and loaded) and the first ones are gone.
    await page.locator('.grid-scroller').evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }));
    await page.locator('.tile-link', { hasText: /^hw_/ }).first().waitFor();
    assert.equal(await page.locator('.tile-link', { hasText: 'city_000.png' }).count(), 0);
    assert.ok((await page.locator('.grid > li').count()) < 200);
    await page.locator('.grid-scroller').evaluate((el) => el.scrollTo({ top: 0 }));
    await page.locator('.tile-link', { hasText: 'city_000.png' }).waitFor();
    await page.locator('.facet-count').filter({ hasText: /^6$/ }).first().waitFor();
    // Each tile draws its objects over the thumbnail, in the image's own coordinates.
    const overlay = page.locator('.tile-link', { hasText: 'city_000.png' }).locator('svg.tile-objects');
    await overlay.locator('polygon.object').waitFor({ state: 'attached' });
    assert.equal(await overlay.getAttribute('viewBox'), `0 0 ${WIDTH} ${HEIGHT}`);
    assert.equal(await overlay.locator('polygon.object').getAttribute('points'), ROOF.points.exterior.map((p) => p.join(',')).join(' '));
    await checkAccessibility(page, 'the gallery');
    await shoot(page, 'gallery');

    await page.getByRole('button', { name: /car/ }).click();
    await page.waitForURL(/class=\d+/);
    await page.getByRole('status').filter({ hasText: '6 images' }).waitFor();
    const names = await page.locator('.tile .caption').allTextContents();
    assert.deepEqual(names, ['city_000.png', 'city_002.png', 'city_004.png', 'city_006.png', 'city_008.png', 'city_010.png']);
    // The filter is in the URL: a reload shows the same view.
    await page.reload();
    await page.getByRole('status').filter({ hasText: '6 images' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /car/ }).getAttribute('aria-pressed'), 'true');
    await page.locator('.tile img').first().waitFor();
    await shoot(page, 'gallery-class-filter');

    await page.getByLabel('Name starts with').fill('city_00');
    await page.getByRole('status').filter({ hasText: '5 images' }).waitFor();
    assert.match(page.url(), /name=city_00/);
  });

  test('the image view draws the stored geometry, highlights on hover, zooms, and steps with the keyboard', async () => {
    await page.locator('.tile-link', { hasText: 'city_002.png' }).click();
    await page.waitForURL(new RegExp(`/images/${carImages[1]}\\?`));
    const car = page.locator('svg path.object').first();
    await car.waitFor();
    // The polygon with its hole: one path whose rings are the stored points.
    const d = await car.getAttribute('d');
    const rings = d!.split('Z').map((ring) => ring.trim()).filter(Boolean).map((ring) => ring.replace(/^M/, '').split(' L').map((p) => p.split(' ').map(Number)));
    assert.deepEqual(rings, [CAR.points.exterior, ...CAR.points.interior]);
    assert.equal(await car.getAttribute('fill-rule'), 'evenodd');
    assert.equal(await car.getAttribute('fill'), '#E53935');
    const roof = page.locator('svg polygon.object');
    assert.equal(await roof.getAttribute('points'), ROOF.points.exterior.map((p) => p.join(',')).join(' '));
    const rect = page.locator('svg rect.object');
    assert.deepEqual(await Promise.all(['x', 'y', 'width', 'height'].map((a) => rect.getAttribute(a))), ['450', '220', '110', '210']);
    assert.equal(await page.locator('svg polyline.object').getAttribute('points'), LANE.points.exterior.map((p) => p.join(',')).join(' '));
    await page.locator('svg mask image').waitFor({ state: 'attached' });

    // Hovering the object highlights its row in the list.
    const id = await roof.getAttribute('data-object-id');
    await roof.hover();
    await page.locator(`.object-list li.hovered[data-object-id="${id}"]`).waitFor();

    // The class toggle hides its objects.
    await page.getByRole('checkbox', { name: 'person' }).uncheck();
    assert.equal(await page.locator('svg rect.object').count(), 0);
    await page.getByRole('checkbox', { name: 'person' }).check();

    // Zoom at the cursor, then fit again.
    const zoom = page.getByLabel('Zoom');
    const fittedZoom = await zoom.textContent();
    const stage = await page.locator('.stage').boundingBox();
    await page.mouse.move(stage!.x + stage!.width / 2, stage!.y + stage!.height / 2);
    await page.mouse.wheel(0, -400);
    await page.locator('.zoom', { hasNotText: new RegExp(`^${fittedZoom}$`) }).waitFor();
    await page.keyboard.press('0');
    await page.locator('.zoom', { hasText: new RegExp(`^${fittedZoom}$`) }).waitFor();

    await page.getByRole('status').filter({ hasText: '2 of 5' }).waitFor();
    await checkAccessibility(page, 'the image view');
    await shoot(page, 'image-view');

    // → and F go to the next image of the filter (cars, names from city_00); ← and D back.
    const step = async (key: string, index: number) => {
      await page.keyboard.press(key);
      await page.waitForURL(new RegExp(`/images/${carImages[index]}\\?`));
      await page.getByRole('status').filter({ hasText: `${index + 1} of 5` }).waitFor();
      await page.getByRole('heading', { name: `city_${String(index * 2).padStart(3, '0')}.png` }).waitFor();
    };
    await step('ArrowRight', 2);
    await step('f', 3);
    await step('ArrowLeft', 2);
    await step('d', 1);
    assert.match(page.url(), /class=\d+/);
    assert.match(page.url(), /name=city_00/);

    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    assert.match((await help.textContent())!, /next image/);
    await checkAccessibility(page, 'the shortcuts');
    await shoot(page, 'image-view-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
  });

  test('the image view edits the image’s tags and description', async () => {
    const imageId = carImages[1]!;
    await page.getByRole('checkbox', { name: 'rainy' }).check();
    await page.getByLabel('Description').fill('Wet road after the storm');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const stored = await t.request({ method: 'GET', url: `/v2/images/${imageId}` });
    const image = JSON.parse(stored.body) as { description: string; tags: { title: string }[] };
    assert.equal(image.description, 'Wet road after the storm');
    assert.deepEqual(image.tags.map((tag) => tag.title), ['rainy']);
    // The objects are as they were.
    assert.equal(await page.locator('svg .object').count(), 5);
    await page.locator('.facts dd', { hasText: 'rainy' }).waitFor();

    // A change made meanwhile elsewhere is not overwritten: the form says so and shows it.
    const annotation = await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` });
    const body = JSON.parse(annotation.body) as { objects: unknown[] };
    const elsewhere = await t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, payload: { description: 'Changed elsewhere', tags: ['rainy'], objects: body.objects } });
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
    await page.getByLabel('Description').fill('My late change');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'changed this image meanwhile' }).waitFor();
    assert.equal(await page.getByLabel('Description').inputValue(), 'Changed elsewhere');
    await checkAccessibility(page, 'the image view after editing');
    await shoot(page, 'image-view-edited');
  });

  test('the tasks page follows a task live, stops it, and says why another failed', async () => {
    const teamId = (await t.ctx.db.kysely.selectFrom('teams').select('id').where('name', '=', 'alpha').executeTakeFirstOrThrow()).id;
    const now = new Date().toISOString();
    const failed = { code: 'BAD_ARCHIVE', message: 'the archive ends before its last file' };
    await t.ctx.db.kysely
      .insertInto('tasks')
      .values({ team_id: teamId, created_by: null, type: 'import', status: 'error', size: 0, meta: JSON.stringify({ error: failed }), created_at: now, started_at: now, finished_at: now, lease_owner: null, lease_expires_at: null, stop_requested: 0, attempts: 1 })
      .execute();
    // No worker runs here: the export waits, queued, until it is stopped.
    const started = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'coco' } });
    assert.equal(started.statusCode, 201, started.body);
    const exportId = (JSON.parse(started.body) as { task: { id: number } }).task.id;

    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
    const row = page.getByRole('listitem', { name: `Task ${exportId}, export` });
    await row.filter({ hasText: 'queued' }).waitFor();
    await page.getByRole('listitem', { name: /, import$/ }).filter({ hasText: `${failed.message} (${failed.code})` }).waitFor();
    await checkAccessibility(page, 'the tasks page');
    await shoot(page, 'tasks');

    // Stopped elsewhere: the open event stream brings the change without a reload.
    const stopped = await t.request({ method: 'POST', url: `/v2/tasks/${exportId}/stop` });
    assert.equal(stopped.statusCode, 202, stopped.body);
    await row.filter({ hasText: 'stopped' }).waitFor();
    assert.equal(await row.getByRole('button', { name: /Stop/ }).count(), 0);
  });

  test('the gallery exports its dataset: format and options, progress, then the archive to download', async () => {
    const runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    try {
      await page.goto(`${base}/projects/${projectId}/images?dataset=${cityId}`);
      const form = page.getByRole('form', { name: 'Export city' });
      await form.getByLabel('Format').selectOption('supervisely');
      await form.getByLabel('Only annotated images').check();
      await form.getByRole('button', { name: 'Export city' }).click();
      const link = form.getByRole('link', { name: 'Download the archive' });
      await link.waitFor({ timeout: 60_000 });
      await checkAccessibility(page, 'the gallery after an export');
      await shoot(page, 'gallery-export');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.equal(download.suggestedFilename(), 'Street scenes-supervisely.zip');
      const file = await download.path();
      const bytes = fs.readFileSync(file);
      assert.equal(bytes.subarray(0, 2).toString('latin1'), 'PK', 'a zip archive');
      // The export asked for is the one made: city's 12 annotated images, in Supervisely's layout.
      const exports = await t.request({ method: 'GET', url: '/v2/tasks?type=export' });
      const task = (JSON.parse(exports.body) as { items: { meta: { name: string; progress?: { total: number } } }[] }).items[0]!;
      assert.equal(task.meta.name, 'Street scenes-supervisely');
      assert.ok(bytes.includes(Buffer.from('city/ann/city_000.png.json')), 'the archive holds city’s annotations');
    } finally {
      await runner.stop();
    }
  });

  test('the gallery selects several images, tags them at once and deletes them', async () => {
    await page.goto(`${base}/projects/${projectId}/images?dataset=${cityId}`);
    await page.getByRole('status').filter({ hasText: '12 images' }).waitFor();
    const rainy = page.getByRole('button', { name: /rainy/ }).locator('.facet-count');
    await rainy.filter({ hasText: /^5$/ }).waitFor();
    await page.getByRole('checkbox', { name: 'Select city_001.png' }).check();
    await page.getByRole('checkbox', { name: 'Select city_003.png' }).check();
    const bar = page.getByRole('region', { name: 'Selected images' });
    await bar.getByText('2 images selected').waitFor();
    await checkAccessibility(page, 'the gallery with a selection');
    await shoot(page, 'gallery-selection');
    await bar.getByLabel('Tag').selectOption({ label: 'rainy' });
    await bar.getByRole('button', { name: 'Add tag' }).click();
    // city_003 had it already; city_001 gets it: one more rainy image.
    await rainy.filter({ hasText: /^6$/ }).waitFor();
    const tagged = JSON.parse((await t.request({ method: 'GET', url: `/v2/images?datasetId=${cityId}&namePrefix=city_001` })).body) as { items: { tags: { title: string }[]; objectCounts: unknown[] }[] };
    assert.deepEqual(tagged.items[0]!.tags.map((x) => x.title), ['rainy']);
    assert.equal(tagged.items[0]!.objectCounts.length, 2, 'its objects are as they were');

    await page.getByRole('checkbox', { name: 'Select city_011.png' }).check();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('region', { name: 'Selected images' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: '11 images' }).waitFor();
    await page.getByRole('button', { name: /^city/ }).locator('.facet-count').filter({ hasText: /^11$/ }).waitFor();
    assert.equal(await page.locator('.tile-link', { hasText: 'city_011.png' }).count(), 0);
    const gone = await t.request({ method: 'GET', url: `/v2/images?datasetId=${cityId}&namePrefix=city_011` });
    assert.deepEqual((JSON.parse(gone.body) as { items: unknown[] }).items, []);
  });

  test('a folder of images is imported from the browser: hashed there, only what the server lacks uploaded', async () => {
    const folder = path.join(tempDir('web-import'), 'trip');
    fs.mkdirSync(path.join(folder, 'day1'), { recursive: true });
    fs.mkdirSync(path.join(folder, 'day2'));
    fs.writeFileSync(path.join(folder, 'day1', 'a.png'), await picture(90, 60, { seed: 101 }));
    fs.writeFileSync(path.join(folder, 'day1', 'b.png'), await picture(90, 60, { seed: 102 }));
    fs.writeFileSync(path.join(folder, 'day2', 'c.png'), await picture(90, 60, { seed: 103 }));
    // The same bytes as an image already stored: not sent again.
    fs.writeFileSync(path.join(folder, 'day2', 'known.png'), await picture(WIDTH, HEIGHT, { seed: 0 }));
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not an image');
    const runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    try {
      await page.goto(`${base}/`);
      await page.getByLabel('Choose a folder…').setInputFiles(folder);
      await page.getByRole('status').filter({ hasText: '3 uploaded, 1 already on the server.' }).waitFor({ timeout: 60_000 });
      await page.getByRole('status').filter({ hasText: 'Import finished.' }).waitFor({ timeout: 60_000 });
      const card = page.locator('.project-card', { hasText: 'trip' });
      await card.locator('.counts', { hasText: '2 datasets · 4 images · 0 objects' }).waitFor();
      await checkAccessibility(page, 'the projects page after an import');
      await shoot(page, 'projects-import');
    } finally {
      await runner.stop();
    }
  });

  test('on a narrow window the panels stack and stay usable', async () => {
    const narrow = await context.newPage();
    await narrow.setViewportSize({ width: 390, height: 844 });
    await narrow.goto(`${base}/projects/${projectId}/images`);
    await narrow.locator('.tile img').first().waitFor();
    await checkAccessibility(narrow, 'the narrow gallery');
    await narrow.screenshot({ path: path.join(SHOTS, 'gallery-narrow.png') });
    await narrow.goto(`${base}/images/${carImages[0]}`);
    await narrow.locator('svg path.object').first().waitFor();
    await narrow.screenshot({ path: path.join(SHOTS, 'image-view-narrow.png') });
    await narrow.close();
  });

  test('signing out ends the session: the API refuses the cookie and the sign-in page shows', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    const status = await page.evaluate('fetch("/v2/projects").then((res) => res.status)');
    assert.equal(status, 401);
  });
});
