// The web interface in a real Chromium, as a user goes through it: sign in with a key, see the
// projects with their counts, open a project's gallery (virtualised), filter it by class, open an
// image and check its drawing against the stored annotation, step with the keyboard, sign out.
// Every page is checked with axe-core (no serious or critical violation) and photographed. The core
// flow (sign-in, gallery, class filter and view, image view, tasks) also runs on the other databases.
// Without Chromium at CHROMIUM_PATH (default /usr/bin/chromium) the tests skip with a line that says so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import sharp from 'sharp';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { checkAccessibility, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { PEER } from '../helpers/peer-fixtures.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { startTaskRunner } from '../../src/tasks/runner.ts';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web interface tests');

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
    browser = await launchChromium();
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
    // The hw_ images follow the city ones, so some are drawn from the start: wait for the first tile
    // to leave and read where the drawn window now begins.
    await page.locator('.grid-scroller').evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }));
    await page.locator('.tile-link', { hasText: 'city_000.png' }).waitFor({ state: 'detached' });
    const firstDrawn = await page.locator('.tile .caption').first().textContent();
    assert.ok(Number(/^hw_(\d+)/.exec(firstDrawn ?? '')?.[1]) > BULK / 4, `the window starts at ${firstDrawn}`);
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

    await page.getByRole('button', { name: /^car\b/ }).click();
    await page.waitForURL(/class=\d+/);
    await page.getByRole('status').filter({ hasText: '6 images' }).waitFor();
    const names = await page.locator('.tile .caption').allTextContents();
    assert.deepEqual(names, ['city_000.png', 'city_002.png', 'city_004.png', 'city_006.png', 'city_008.png', 'city_010.png']);
    // The filter is in the URL: a reload shows the same view.
    await page.reload();
    await page.getByRole('status').filter({ hasText: '6 images' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^car\b/ }).getAttribute('aria-pressed'), 'true');
    await page.locator('.tile img').first().waitFor();
    await shoot(page, 'gallery-class-filter');

    // The name search finds the text anywhere in the name, whatever its case.
    await page.getByLabel('Name contains').fill('TY_01');
    await page.getByRole('status').filter({ hasText: '1 image' }).waitFor();
    assert.deepEqual(await page.locator('.tile .caption').allTextContents(), ['city_010.png']);
    await page.getByLabel('Name contains').fill('city_00');
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
    // The puddle (a disc of 60 pixels at 200,380) is hovered on its disc, not in the empty corner of its box.
    const onScreen = async (x: number, y: number) =>
      (await page.evaluate(`(() => { const m = document.querySelector('svg g.objects').getScreenCTM(); return [m.e + m.a * ${x}, m.f + m.d * ${y}]; })()`)) as [number, number];
    await page.mouse.move(...(await onScreen(230, 410)));
    await page.locator('.object-list li.hovered', { hasText: 'puddle' }).waitFor();
    await page.mouse.move(...(await onScreen(203, 383)), { steps: 3 });
    await page.locator('.object-list li.hovered').waitFor({ state: 'detached' });

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
    // Opened afresh, so that this test does not hang on where the one before left the page.
    await page.goto(`${base}/images/${imageId}`);
    // The puddle's mask is drawn last, once decoded.
    await page.locator('svg g.object mask image').waitFor({ state: 'attached' });
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
    const conflict = page.getByRole('dialog', { name: 'Someone else changed this image' });
    await conflict.waitFor();
    assert.match((await conflict.textContent())!, /Description: Changed elsewhere/);
    assert.equal(JSON.parse((await t.request({ method: 'GET', url: `/v2/images/${imageId}` })).body).description, 'Changed elsewhere');
    await conflict.getByRole('button', { name: 'Reload theirs' }).click();
    await conflict.waitFor({ state: 'hidden' });
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

    // A task started elsewhere while the page is open shows up on it, at the top, without a reload.
    const later = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'yolo' } });
    assert.equal(later.statusCode, 201, later.body);
    const laterId = (JSON.parse(later.body) as { task: { id: number } }).task.id;
    await page.getByRole('listitem', { name: `Task ${laterId}, export` }).filter({ hasText: 'queued' }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.task-list > li').first().getAttribute('aria-label'), `Task ${laterId}, export`);
    const stoppedLater = await t.request({ method: 'POST', url: `/v2/tasks/${laterId}/stop` });
    assert.equal(stoppedLater.statusCode, 202, stoppedLater.body);
  });

  test('the tasks page shows them all, a page at a time, and still follows a running one found on a later page', async () => {
    const teamId = (await t.ctx.db.kysely.selectFrom('teams').select('id').where('name', '=', 'alpha').executeTakeFirstOrThrow()).id;
    // A queued export, then 120 finished ones after it: the queued one is on the third page.
    const started = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'yolo' } });
    assert.equal(started.statusCode, 201, started.body);
    const queuedId = (JSON.parse(started.body) as { task: { id: number } }).task.id;
    const now = new Date().toISOString();
    const done = { team_id: teamId, created_by: null, type: 'export', status: 'finished', size: 0, meta: JSON.stringify({ name: 'old' }), created_at: now, started_at: now, finished_at: now, lease_owner: null, lease_expires_at: null, stop_requested: 0, attempts: 1 };
    await t.ctx.db.kysely.insertInto('tasks').values(Array.from({ length: 120 }, () => done)).execute();
    const all = await t.ctx.db.kysely.selectFrom('tasks').select('id').where('team_id', '=', teamId).orderBy('id', 'desc').execute();
    assert.ok(all.length > 120);

    const lists: string[] = [];
    const listed = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (url.pathname === '/v2/tasks') lists.push(url.search);
    };
    await page.goto(`${base}/tasks`);
    // Only now: the tasks page left behind may still have polled for newer tasks (with a cursor) while
    // going. The first page read here has no cursor, so nothing counted below is missed.
    page.on('request', listed);
    const rows = page.locator('.task-list > li');
    const more = page.getByRole('button', { name: 'Show older tasks' });
    await page.getByRole('status').filter({ hasText: `50 of ${all.length} tasks shown` }).waitFor();
    assert.equal(await rows.count(), 50);
    await more.scrollIntoViewIfNeeded();
    await shoot(page, 'tasks-more');
    await more.click();
    await page.getByRole('status').filter({ hasText: `100 of ${all.length} tasks shown` }).waitFor();
    await checkAccessibility(page, 'the tasks page after a second page');
    await more.click();
    await page.getByRole('status').filter({ hasText: new RegExp(`^${all.length} tasks$`) }).waitFor();
    assert.equal(await more.count(), 0, 'no button once the last page is in');
    // Every task once, newest first: the pages followed the cursor, none read twice.
    const shown = (await rows.evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')))).map((label) => Number(/^Task (\d+),/.exec(label ?? '')?.[1]));
    assert.deepEqual(shown, all.map((row) => row.id));
    // (The page also reads the newest page again every few seconds, for tasks started elsewhere.)
    const older = lists.filter((search) => /[?&]cursor=/.test(search));
    assert.equal(older.length, Math.ceil(all.length / 50) - 1, lists.join(' '));
    assert.equal(new Set(older).size, older.length);

    // The queued export came with the last page: its event stream brings its stop without a reload.
    const row = page.getByRole('listitem', { name: `Task ${queuedId}, export` });
    await row.filter({ hasText: 'queued' }).waitFor();
    const stopped = await t.request({ method: 'POST', url: `/v2/tasks/${queuedId}/stop` });
    assert.equal(stopped.statusCode, 202, stopped.body);
    await row.filter({ hasText: 'stopped' }).waitFor();
    await checkAccessibility(page, 'the tasks page with every task');
    page.off('request', listed);

    // A burst of 230 at once, more than one look reads (4 pages of 50): what was read replaces the list,
    // and "Show older tasks" goes on from there, so no task is skipped.
    const burstDone = { team_id: teamId, created_by: null, type: 'export', status: 'finished', size: 0, meta: JSON.stringify({ name: 'burst' }), created_at: now, started_at: now, finished_at: now, lease_owner: null, lease_expires_at: null, stop_requested: 0, attempts: 1 };
    await t.ctx.db.kysely.insertInto('tasks').values(Array.from({ length: 230 }, () => burstDone)).execute();
    const everyId = (await t.ctx.db.kysely.selectFrom('tasks').select('id').where('team_id', '=', teamId).orderBy('id', 'desc').execute()).map((r) => r.id);
    await page.getByRole('listitem', { name: `Task ${everyId[0]}, export` }).waitFor({ timeout: 10_000 });
    const showOlder = page.getByRole('button', { name: 'Show older tasks' });
    while ((await showOlder.count()) > 0) {
      const before = await page.locator('.task-list > li').count();
      await showOlder.click();
      await page.locator('.task-list > li').nth(before).waitFor();
    }
    const ids = (await page.locator('.task-list > li').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')))).map((label) => Number(/^Task (\d+),/.exec(label ?? '')?.[1]));
    assert.deepEqual(ids, everyId);
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
    const rainy = page.getByRole('button', { name: /^rainy\b/ }).locator('.facet-count');
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

  test('the gallery hides one class’s shapes on the tiles, keeps the others, filters nothing, and keeps the view in the URL', async () => {
    const classes = JSON.parse((await t.request({ method: 'GET', url: `/v2/projects/${projectId}/classes` })).body) as { items: { id: number; title: string }[] };
    const carId = classes.items.find((c) => c.title === 'car')!.id;
    await page.goto(`${base}/projects/${projectId}/images?dataset=${cityId}`);
    await page.getByRole('status').filter({ hasText: '11 images' }).waitFor();
    // city_000 holds a car (a path with a hole), its roof (a polygon), a person, a lane and a puddle.
    const tile = page.locator('.tile-link', { hasText: 'city_000.png' }).locator('svg.tile-objects');
    const shapes = async () => ({
      car: (await tile.locator('path.object').count()) + (await tile.locator('polygon.object').count()),
      person: await tile.locator('rect.object').count(),
      lane: await tile.locator('polyline.object').count(),
      puddle: await tile.locator('g.object').count(),
    });
    await tile.locator('polygon.object').waitFor({ state: 'attached' });
    await tile.locator('g.object mask image').waitFor({ state: 'attached' });
    assert.deepEqual(await shapes(), { car: 2, person: 1, lane: 1, puddle: 1 });

    // By keyboard: the eye next to the class is a labelled checkbox of its own, apart from the filter.
    const drawCar = page.getByRole('checkbox', { name: 'Draw car on tiles' });
    assert.equal(await drawCar.isChecked(), true);
    await drawCar.focus();
    await page.keyboard.press('Space');
    await page.waitForURL(new RegExp(`[?&]hide=${carId}(&|$)`));
    await tile.locator('path.object, polygon.object').first().waitFor({ state: 'detached' });
    assert.deepEqual(await shapes(), { car: 0, person: 1, lane: 1, puddle: 1 });
    // A view setting, not a filter: the same images, the car filter not engaged.
    await page.getByRole('status').filter({ hasText: '11 images' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^car\b/ }).getAttribute('aria-pressed'), 'false');
    assert.equal(await page.getByRole('checkbox', { name: 'Draw person on tiles' }).isChecked(), true);
    await checkAccessibility(page, 'the gallery with a class hidden');
    await shoot(page, 'gallery-class-hidden');

    // A shared link (here, a reload) shows the same view.
    await page.reload();
    await page.getByRole('status').filter({ hasText: '11 images' }).waitFor();
    await tile.locator('rect.object').waitFor({ state: 'attached' });
    // A bitmap is drawn once its mask is decoded, after the other shapes.
    await tile.locator('g.object mask image').waitFor({ state: 'attached' });
    assert.equal(await page.getByRole('checkbox', { name: 'Draw car on tiles' }).isChecked(), false);
    assert.deepEqual(await shapes(), { car: 0, person: 1, lane: 1, puddle: 1 });

    // A filter chosen now keeps the view; drawing the class again brings its shapes back.
    await page.getByRole('button', { name: /^person\b/ }).click();
    await page.waitForURL(/class=\d+/);
    assert.match(page.url(), new RegExp(`[?&]hide=${carId}(&|$)`));
    await page.getByRole('checkbox', { name: 'Draw car on tiles' }).check();
    await tile.locator('path.object').waitFor({ state: 'attached' });
    await tile.locator('g.object mask image').waitFor({ state: 'attached' });
    assert.deepEqual(await shapes(), { car: 2, person: 1, lane: 1, puddle: 1 });
    assert.doesNotMatch(page.url(), /hide=/);
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
      await page.getByLabel('What will be imported').filter({ hasText: 'Folder of images: 4 images' }).waitFor();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
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

  /** The files the page uploads while `run` runs, by the server's answers: an image is answered with its hash, another file with a fileId. */
  async function uploadsDuring(run: () => Promise<void>): Promise<{ requests: number; images: number; others: number }> {
    const seen = { requests: 0, images: 0, others: 0 };
    const answers: Promise<void>[] = [];
    const count = (response: Response) => {
      if (!response.url().endsWith('/v2/imports/files')) return;
      seen.requests += 1;
      answers.push(
        response.json().then((answer: { files: { hash?: string; fileId?: string }[] }) => {
          for (const file of answer.files) {
            if (file.hash) seen.images += 1;
            else if (file.fileId) seen.others += 1;
          }
        }),
      );
    };
    page.on('response', count);
    try {
      await run();
    } finally {
      page.off('response', count);
    }
    await Promise.all(answers);
    return seen;
  }

  /**
   * Chooses `folder` in the import form, checks what the form says it found, imports it as a new project
   * titled `target` (or into the project titled `target.into`) and waits for the task.
   */
  async function importInBrowser(
    folder: string,
    found: string | RegExp,
    target: string | { into: string; onConflict?: string },
    shot?: string,
  ): Promise<{ requests: number; images: number; others: number }> {
    const runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    try {
      await page.goto(`${base}/`);
      return await uploadsDuring(async () => {
        await page.getByLabel('Choose a folder…').setInputFiles(folder);
        await page.getByLabel('What will be imported').filter({ hasText: found }).waitFor();
        if (shot) {
          await checkAccessibility(page, 'the import form with a folder read');
          await page.locator('section.import').scrollIntoViewIfNeeded();
          await shoot(page, shot);
        }
        if (typeof target === 'string') await page.getByLabel('Project title').fill(target);
        else {
          await page.getByLabel('Into').selectOption({ label: target.into });
          if (target.onConflict) await page.getByLabel('When an image’s name is there already').selectOption({ label: target.onConflict });
        }
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await page.getByRole('status').filter({ hasText: 'Import finished.' }).waitFor({ timeout: 60_000 });
      });
    } finally {
      await runner.stop();
    }
  }

  /** The images of the project titled `title` by name, with their objects, through API v2. */
  async function importedImages(title: string): Promise<[string, AnnotationObject[]][]> {
    const projects = JSON.parse((await t.request({ method: 'GET', url: '/v2/projects?limit=1000' })).body) as { items: { id: number; title: string }[] };
    const matching = projects.items.filter((p) => p.title === title);
    assert.equal(matching.length, 1, `one project titled ${title}`);
    const images = JSON.parse((await t.request({ method: 'GET', url: `/v2/images?projectId=${matching[0]!.id}&limit=1000` })).body) as { items: { id: number; name: string }[] };
    const out: [string, AnnotationObject[]][] = [];
    for (const image of images.items) {
      const annotation = JSON.parse((await t.request({ method: 'GET', url: `/v2/images/${image.id}/annotation` })).body) as { objects: AnnotationObject[] };
      out.push([image.name, annotation.objects]);
    }
    return out;
  }

  const objectCount = (images: Iterable<[string, AnnotationObject[]]>) => [...images].reduce((sum, [, objects]) => sum + objects.length, 0);

  test('a COCO folder is read in the browser with the planners of annostore import; dropped again, it sends no image', async () => {
    const folder = path.join(PEER, 'labelformat/coco/object_detection');
    const first = await importInBrowser(folder, 'COCO: 2 images (112 KB), 1 class or annotation file.', 'COCO from the browser', 'import-coco');
    // The images in one request, then the COCO file.
    assert.deepEqual(first, { requests: 2, images: 2, others: 1 });
    const images = new Map(await importedImages('COCO from the browser'));
    assert.deepEqual([...images.keys()].sort(), ['a-weird Filename.asdf.jpg', 'aNother-weird__ filename.with.many.characters.jpg']);
    assert.equal(objectCount(images), 16);
    const dog = images.get('a-weird Filename.asdf.jpg')!.find((o) => o.classTitle === 'dog');
    assert.deepEqual(dog?.points.exterior, [[540, 295], [563, 313]]);
    // The images are stored now: only the COCO file (named by its upload in the import) goes again.
    const second = await importInBrowser(folder, 'COCO: 2 images', 'COCO again');
    assert.deepEqual(second, { requests: 1, images: 0, others: 1 });
    await page.getByRole('status').filter({ hasText: '0 uploaded, 2 already on the server' }).waitFor();
    assert.equal(objectCount(await importedImages('COCO again')), 16);
  });

  test('a folder imported into a project there is keeps the images it has, or keeps both when asked', async () => {
    const folder = path.join(PEER, 'labelformat/coco/object_detection');
    const names = async () => (await importedImages('COCO from the browser')).map(([name]) => name).sort();
    const before = await names();
    assert.equal(before.length, 2);
    // The same names again, kept as they are: nothing changes, and no image is sent.
    const kept = await importInBrowser(folder, 'COCO: 2 images', { into: 'COCO from the browser' });
    assert.equal(kept.images, 0);
    assert.deepEqual(await names(), before);
    // Both kept: the new ones are renamed, with their objects.
    await importInBrowser(folder, 'COCO: 2 images', { into: 'COCO from the browser', onConflict: 'Keep both (the new one renamed)' });
    const images = new Map(await importedImages('COCO from the browser'));
    assert.deepEqual([...images.keys()].sort(), ['a-weird Filename.asdf (1).jpg', 'a-weird Filename.asdf.jpg', 'aNother-weird__ filename.with.many.characters (1).jpg', 'aNother-weird__ filename.with.many.characters.jpg']);
    assert.equal(objectCount(images), 32);
  });

  test('a Supervisely project and a YOLO dataset are imported from the browser with their objects', async () => {
    const supervisely = await importInBrowser(path.join(PEER, 'superannotate/supervisely/vector'), 'Supervisely project: 6 images', 'Supervisely from the browser');
    assert.equal(supervisely.images, 6);
    assert.equal(supervisely.others, 7, 'meta.json and the six annotations');
    const images = new Map(await importedImages('Supervisely from the browser'));
    assert.equal(images.size, 6);
    assert.deepEqual(
      images.get('cat3.jpg')!.map((o) => o.classTitle),
      ['cat', 'test_point', 'test_point'],
    );
    const cat = images.get('cat1.jpg')!;
    assert.equal(cat.length, 1);
    assert.equal(cat[0]!.classTitle, 'cat');
    assert.deepEqual(cat[0]!.points.exterior, [[501, 18], [1536, 1868]]);

    // A stray README.txt at the root is left out; the class names come from obj.names.
    const yolo = await importInBrowser(path.join(PEER, 'datumaro/yolo/labels'), '1 other file left out', 'YOLO from the browser');
    assert.equal(yolo.others, 3, 'obj.names and the two label files');
    const yoloImages = await importedImages('YOLO from the browser');
    assert.deepEqual(yoloImages.map(([name]) => name), ['1.jpg', '1.jpg'], 'one in train, one in val');
    assert.equal(objectCount(yoloImages), 4);
  });

  test('a Pascal VOC folder is imported from the browser with its splits, object tags and instance mask', async () => {
    // The per-class, Action, Layout and Segmentation lists are left out, as annostore import leaves them.
    const voc = await importInBrowser(path.join(PEER, 'datumaro/voc/voc_dataset1'), /^Pascal VOC: 2 images \(\d+ KB\), 5 class and annotation files; 28 other files left out\.$/, 'VOC from the browser');
    // Its two photos are the same bytes: they go once.
    assert.deepEqual(voc, { requests: 2, images: 1, others: 5 });
    const images = new Map(await importedImages('VOC from the browser'));
    assert.deepEqual([...images.keys()].sort(), ['2007_000001.jpg', '2007_000002.jpg']);
    const objects = images.get('2007_000001.jpg')!;
    assert.deepEqual(objects.map((o) => o.classTitle), ['cat', 'person', 'head', 'cat (bitmap)']);
    assert.deepEqual(objects[0]!.points.exterior, [[1, 2], [3, 4]]);
    assert.deepEqual(objects[0]!.tags, ['pose', 'truncated', 'difficult']);
    assert.deepEqual(images.get('2007_000002.jpg'), []);
  });

  test('files dropped on the import form are read the same way; nothing is sent before Import', async () => {
    await page.goto(`${base}/`);
    const pictures = await Promise.all([201, 202].map(async (seed) => (await picture(40, 30, { seed })).toString('base64')));
    const uploads = await uploadsDuring(async () => {
      // A drop as the browser makes it for loose files: a DataTransfer of File objects.
      const dataTransfer = await page.evaluateHandle(
        `(() => {
          const data = new DataTransfer();
          ${JSON.stringify(pictures)}.forEach((b64, i) => data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'drop' + i + '.png', { type: 'image/png' })));
          data.items.add(new File(['a note'], 'readme.txt', { type: 'text/plain' }));
          return data;
        })()`,
      );
      await page.locator('section.import').dispatchEvent('drop', { dataTransfer });
      await page.getByLabel('What will be imported').filter({ hasText: /^Folder of images: 2 images \(\d+ KB\), 0 class and annotation files; 1 other file left out\.$/ }).waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByLabel('What will be imported').waitFor({ state: 'detached' });
    });
    assert.equal(uploads.requests, 0);
  });

  test('a folder of two formats is refused until a format is chosen in the form', async () => {
    // A YOLO dataset with the Pascal VOC files of the same photos beside it.
    const folder = path.join(tempDir('web-import'), 'both');
    fs.cpSync(path.join(PEER, 'labelformat/yolo/object_detection'), folder, { recursive: true });
    fs.cpSync(path.join(PEER, 'labelformat/voc/object_detection'), folder, { recursive: true });
    await page.goto(`${base}/`);
    await page.getByLabel('Choose a folder…').setInputFiles(folder);
    await page
      .getByRole('alert')
      .filter({ hasText: 'both holds the files of several formats: Pascal VOC (a-weird Filename.asdf.xml), YOLO (example.yaml); choose one as the format (Pascal VOC, YOLO)' })
      .waitFor();
    await page.getByLabel('Format').selectOption({ label: 'YOLO' });
    await page.getByLabel('What will be imported').filter({ hasText: 'YOLO: 2 images' }).waitFor();
    assert.equal(await page.getByRole('alert').count(), 0);
    assert.match((await page.getByLabel('What will be imported').textContent()) ?? '', /3 class and annotation files; 2 other files left out\./);
    await page.getByLabel('Project title').fill('YOLO chosen in the browser');
    const runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    try {
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Import finished.' }).waitFor({ timeout: 60_000 });
    } finally {
      await runner.stop();
    }
    assert.equal(objectCount(await importedImages('YOLO chosen in the browser')), 16);
  });

  test('a folder with nothing to import says what was looked for, and sends nothing', async () => {
    const folder = path.join(tempDir('web-import'), 'papers');
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not an image');
    await page.goto(`${base}/`);
    const uploads = await uploadsDuring(async () => {
      await page.getByLabel('Choose a folder…').setInputFiles(folder);
      await page.getByRole('alert').filter({ hasText: 'papers is not a project: no images found' }).waitFor();
    });
    await page.locator('section.import').scrollIntoViewIfNeeded();
    await shoot(page, 'import-nothing');
    assert.equal(uploads.requests, 0);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /COCO \(a \*\.json with images, annotations and categories/);
    assert.equal(await page.getByRole('button', { name: 'Import', exact: true }).count(), 0);
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
    await narrow.goto(`${base}/tasks`);
    await narrow.getByRole('button', { name: 'Show older tasks' }).waitFor();
    await checkAccessibility(narrow, 'the narrow tasks page');
    await narrow.screenshot({ path: path.join(SHOTS, 'tasks-narrow.png') });
    await narrow.close();
  });

  test('signing out ends the session: the API refuses the cookie and the sign-in page shows', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    const status = await page.evaluate('fetch("/v2/projects").then((res) => res.status)');
    assert.equal(status, 401);
  });
});

// The core flow again on each database but SQLite (which the suite above covers at length): what the
// pages show comes through the same API, but its queries run on that database.
for (const dialect of dialects.filter((d) => d.name !== 'sqlite')) {
  describe(`the web interface's core flow on ${dialect.name}`, { skip: chromiumSkip || dialect.skip }, () => {
    let t: TestApp;
    let browser: Browser;

    before(async () => {
      t = await startTestApp(dialect);
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await t?.close();
    });

    test('sign in, the gallery with its counts, a class filtered and a class hidden, the image view, the tasks', async () => {
      const ctx = t.ctx;
      const projectId = await newProject(ctx, {
        title: 'Street scenes',
        classes: [
          { title: 'car', shape: 'polygon', color: '#E53935' },
          { title: 'person', shape: 'rectangle', color: '#1E88E5' },
        ],
      });
      const city = await newDataset(ctx, projectId, 'city');
      const ids: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const objects = i % 2 === 0 ? [CAR, PERSON] : [PERSON];
        ids.push((await newImage(ctx, city, { name: `city_${i}.png`, bytes: await picture(WIDTH, HEIGHT, { seed: i }), width: WIDTH, height: HEIGHT, objects })).id);
      }
      const exported = await t.request({ method: 'POST', url: '/v2/exports', payload: { projectId, format: 'coco' } });
      assert.equal(exported.statusCode, 201, exported.body);
      const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);

      await page.goto(`${base}/`);
      await page.getByLabel('API key').fill(t.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('.project-card .counts', { hasText: '1 dataset · 4 images · 6 objects' }).waitFor();

      await page.getByRole('link', { name: 'Street scenes' }).click();
      await page.getByRole('status').filter({ hasText: '4 images' }).waitFor();
      await page.getByRole('button', { name: /^car\b/ }).locator('.facet-count').filter({ hasText: /^2$/ }).waitFor();
      const tile = page.locator('.tile-link', { hasText: 'city_0.png' }).locator('svg.tile-objects');
      await tile.locator('path.object').waitFor({ state: 'attached' });
      await page.getByRole('checkbox', { name: 'Draw car on tiles' }).uncheck();
      await tile.locator('path.object').waitFor({ state: 'detached' });
      assert.equal(await tile.locator('rect.object').count(), 1);
      await page.getByRole('button', { name: /^car\b/ }).click();
      await page.getByRole('status').filter({ hasText: '2 images' }).waitFor();
      assert.deepEqual(await page.locator('.tile .caption').allTextContents(), ['city_0.png', 'city_2.png']);
      await checkAccessibility(page, `the gallery on ${dialect.name}`);

      await page.locator('.tile-link', { hasText: 'city_2.png' }).click();
      await page.waitForURL(new RegExp(`/images/${ids[2]}\\?`));
      const car = page.locator('svg path.object').first();
      await car.waitFor();
      assert.equal(await car.getAttribute('fill-rule'), 'evenodd');
      await page.getByRole('status').filter({ hasText: '2 of 2' }).waitFor();
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL(new RegExp(`/images/${ids[0]}\\?`));

      await page.getByRole('link', { name: 'Tasks' }).click();
      await page.getByRole('listitem', { name: /, export$/ }).filter({ hasText: 'queued' }).waitFor();
      await page.getByRole('status').filter({ hasText: /^1 task$/ }).waitFor();
      await context.close();
    });
  });
}
