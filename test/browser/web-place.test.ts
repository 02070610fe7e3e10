// The web interface keeps the user's place and holds its layout, in a real Chromium: Back to the
// gallery scrolls to where it was with the image just seen in view, ←/→ add no history entries, an
// unsaved edit survives a reload (a draft in the browser, offered back), the editor's notice never
// moves the stage; long names never widen a card, the sidebar or the page; every page fits 390 px;
// empty states say what is empty; a wrong address gets a page with a way back; the drop zone lights
// up; a batch's result stays until dismissed; the app has an icon. Each page is photographed at
// 1440×900 and 390×844 (WEB_SCREENSHOTS=<folder> keeps them).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { checkAccessibility, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { startTaskRunner } from '../../src/tasks/runner.ts';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';

const chromiumSkip = skipWithoutChromium('web interface place and layout tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-place-shots');

/** A class title of 200 characters with no space to break it at. */
const LONG = 'traffic_sign_'.repeat(16).slice(0, 200);
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 390, height: 844 };
const BULK = 240;

describe('the web interface keeps the user’s place and its layout', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let projectId: number;
  let emptyProjectId: number;
  let bulkId: number;
  let bulkImages: number[];
  let editId: number;

  async function signedIn(key: string, viewport = WIDE): Promise<Page> {
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    return page;
  }

  /** Whether the element (by selector) is no wider than its box: nothing sticks out sideways. */
  const fits = async (page: Page, selector: string): Promise<{ scroll: number; client: number }> =>
    (await page.evaluate(`(() => { const e = document.querySelector(${JSON.stringify(selector)}); return { scroll: e.scrollWidth, client: e.clientWidth }; })()`)) as { scroll: number; client: number };
  const pageWidth = async (page: Page): Promise<number> => (await page.evaluate('document.documentElement.scrollWidth')) as number;
  /** What sticks out past the right edge of the window (or of the element of `within`), to name in a failure. */
  const overflowing = async (page: Page, within = 'html'): Promise<string> =>
    (await page.evaluate(
      `(() => { const box = document.querySelector(${JSON.stringify(within)}); const edge = box.getBoundingClientRect().left + box.clientWidth; return [...box.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > edge + 0.5 || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible' && e.clientWidth > 0)).slice(0, 6).map((e) => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ').join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().right)).join(', '); })()`,
    )) as string;
  type Box = { scrollTop: number; scrollWidth: number; clientWidth: number };
  // Named apart from web.test.ts's, which may write to the same folder.
  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `place-${name}.png`) });

  before(async () => {
    t = await startTestApp(dialects[0]!);
    const ctx = t.ctx;
    projectId = await newProject(ctx, {
      title: 'Road survey',
      classes: [
        { title: 'car', shape: 'polygon', color: '#E53935' },
        { title: LONG, shape: 'point', color: '#1E88E5' },
      ],
    });
    emptyProjectId = await newProject(ctx, { title: 'Nothing yet', classes: [{ title: 'tree', shape: 'polygon', color: '#43A047' }] });
    await newTag(ctx, projectId, { title: `tag_${LONG}`.slice(0, 120) });
    const edits = await newDataset(ctx, projectId, `dataset_${LONG}`.slice(0, 200));
    const sign: AnnotationObject = { classTitle: LONG, description: '', tags: [], bitmap: null, points: { exterior: [[100, 100]], interior: [] } };
    editId = (await newImage(ctx, edits, { name: `${'long_image_name_'.repeat(8)}.png`, bytes: await picture(640, 480, { seed: 1 }), width: 640, height: 480, objects: [polygon('car', [[300, 200], [500, 200], [500, 400]]), sign] })).id;
    bulkId = await newDataset(ctx, projectId, 'bulk');
    const shared = await Promise.all([0, 1, 2].map((seed) => picture(160, 120, { seed: seed + 10 })));
    bulkImages = [];
    for (let i = 0; i < BULK; i += 1) {
      bulkImages.push((await newImage(ctx, bulkId, { name: `b_${String(i).padStart(4, '0')}.png`, bytes: shared[i % 3], width: 160, height: 120 })).id);
    }
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('a wrong address in the browser shows "Not found" with a link back, never the API’s words', async () => {
    const page = await signedIn(t.key);
    assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), '/assets/favicon.svg');
    const cases: [string, RegExp, string][] = [
      ['/projects/abc', /no page at this address/, 'Back to the projects'],
      ['/projects/999999/images', /This project does not exist/, 'Back to the projects'],
      ['/projects/999999', /This project does not exist/, 'Back to the projects'],
      ['/datasets/999999/images', /This dataset does not exist/, 'Back to the projects'],
      ['/images/abc', /no page at this address/, 'Back to the projects'],
      ['/nowhere/at/all', /no page at this address/, 'Back to the projects'],
      [`/images/999999?project=${projectId}`, /This image does not exist/, 'Back to the gallery'],
    ];
    for (const [url, text, back] of cases) {
      await page.goto(`${base}${url}`);
      await page.getByRole('heading', { name: 'Not found', level: 1 }).waitFor();
      const body = (await page.locator('main').textContent())!;
      assert.match(body, text, url);
      assert.doesNotMatch(body, /params\.|must be integer|NOT_FOUND|\{/, url);
      await page.getByRole('link', { name: back }).waitFor();
    }
    await checkAccessibility(page, 'the not found page');
    await shoot(page, 'not-found-wide');
    await page.setViewportSize(NARROW);
    assert.ok((await pageWidth(page)) <= NARROW.width);
    await shoot(page, 'not-found-narrow');
    await page.getByRole('link', { name: 'Back to the gallery' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/images`);
    await page.goto(`${base}/projects/${projectId}?dataset=${bulkId}`);
    await page.waitForURL(`${base}/projects/${projectId}/images?dataset=${bulkId}`);
    await page.locator('.tile img').first().waitFor();
    await page.context().close();
  });

  test('Back to the gallery returns to its scroll with the image just seen in view; ←/→ add no history entries', async () => {
    const page = await signedIn(t.key);
    await page.goto(`${base}/projects/${projectId}/images?dataset=${bulkId}`);
    await page.locator('.tile img').first().waitFor();
    const scroller = page.locator('.grid-scroller');
    await scroller.evaluate((e: Box) => void (e.scrollTop = 2450));
    const tile = page.locator('.tile-link', { hasText: 'b_0080.png' });
    await tile.waitFor();
    await page.waitForTimeout(100); // the offset is kept at the next frame
    const scrolled = await scroller.evaluate((e: Box) => e.scrollTop);
    const entries = (await page.evaluate('history.length')) as number;
    await tile.click();
    await page.waitForURL(new RegExp(`/images/${bulkImages[80]}\\?`));
    for (let step = 1; step <= 5; step += 1) {
      await page.getByRole('status').filter({ hasText: new RegExp(`^${80 + step} of ${BULK}$`) }).waitFor();
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(new RegExp(`/images/${bulkImages[80 + step]}\\?`));
    }
    assert.equal(await page.evaluate('history.length'), entries + 1, 'one entry for the image view, however many images were stepped through');
    await page.goBack();
    await page.waitForURL(new RegExp(`/projects/${projectId}/images\\?dataset=${bulkId}$`));
    const seen = page.locator('.tile-link', { hasText: 'b_0085.png' });
    await seen.waitFor();
    const top = await scroller.evaluate((e: Box) => e.scrollTop);
    assert.ok(Math.abs(top - scrolled) < 210, `back at ${top}, left at ${scrolled}`);
    const box = (await scroller.boundingBox())!;
    const at = (await seen.boundingBox())!;
    assert.ok(at.y >= box.y && at.y + at.height <= box.y + box.height, 'the image last seen is in view');

    // Stepped far past the tiles in view, Back brings that image into view.
    await seen.click();
    await page.waitForURL(new RegExp(`/images/${bulkImages[85]}\\?`));
    await page.goto(`${base}/images/${bulkImages[230]}?project=${projectId}&dataset=${bulkId}`);
    await page.getByRole('status').filter({ hasText: `231 of ${BULK}` }).waitFor();
    await page.getByRole('link', { name: 'Road survey' }).click();
    const far = page.locator('.tile-link', { hasText: 'b_0230.png' });
    await far.waitFor();
    const farAt = (await far.boundingBox())!;
    assert.ok(farAt.y >= box.y && farAt.y + farAt.height <= box.y + box.height, 'the image far down is in view');
    await page.context().close();
  });

  test('an unsaved edit survives a reload, is offered back, and is gone once saved; the notice never moves the stage', async () => {
    const page = await signedIn(t.key);
    await page.goto(`${base}/images/${editId}`);
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
    const stage = page.locator('.stage');
    const before = (await stage.boundingBox())!;
    await page.getByLabel('Class').selectOption(LONG);
    const box = before;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.getByRole('status').filter({ hasText: 'Unsaved changes' }).waitFor();
    assert.deepEqual(await stage.boundingBox(), before, 'the first edit does not move the stage');
    await page.waitForFunction(`localStorage.getItem('annostore.draft.${editId}') !== null`);
    await page.reload();
    const offer = page.getByRole('region', { name: 'Unsaved changes kept' });
    await offer.getByText(/^Restore unsaved changes from \d/).waitFor();
    assert.deepEqual(await stage.boundingBox(), before, 'the offer does not move the stage');
    await checkAccessibility(page, 'the editor offering a draft back');
    await shoot(page, 'editor-draft-offer');
    assert.match((await page.locator('#objects-title').textContent())!, /\(2\)/);
    await offer.getByRole('button', { name: 'Restore' }).click();
    await page.locator('#objects-title', { hasText: '(3)' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Unsaved changes restored.' }).waitFor();
    await page.keyboard.press('Control+s');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.waitForFunction(`localStorage.getItem('annostore.draft.${editId}') === null`);
    const stored = JSON.parse((await t.request({ method: 'GET', url: `/v2/images/${editId}/annotation` })).body) as { objects: unknown[] };
    assert.equal(stored.objects.length, 3);
    await page.reload();
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
    assert.equal(await offer.count(), 0, 'nothing to offer after a save');

    // A draft made on a version someone has since replaced is not written over theirs: Save meets theirs.
    await page.keyboard.press('Delete'); // nothing selected: no change
    await page.locator('.object-list li').first().click();
    await page.keyboard.press('Delete');
    await page.locator('#objects-title', { hasText: '(2)' }).waitFor();
    await page.waitForFunction(`localStorage.getItem('annostore.draft.${editId}') !== null`);
    const theirs = JSON.parse((await t.request({ method: 'GET', url: `/v2/images/${editId}/annotation` })).body) as Record<string, unknown>;
    const put = await t.request({ method: 'PUT', url: `/v2/images/${editId}/annotation`, payload: { description: 'theirs', tags: [], objects: theirs.objects } });
    assert.equal(put.statusCode, 200, put.body);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.reload();
    await offer.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('status').filter({ hasText: 'saved since' }).waitFor();
    await page.keyboard.press('Control+s');
    await page.getByRole('dialog').filter({ hasText: /Keep mine/ }).waitFor();
    await page.context().close();
  });

  test('the browser keeps the drafts of the 20 latest images; leaving on purpose without saving keeps none', async () => {
    const page = await signedIn(t.key);
    // Twenty older drafts of other images, oldest first.
    await page.evaluate(`(() => {
      const index = [];
      for (let i = 1; i <= 20; i += 1) {
        index.push({ id: 900000 + i, savedAt: i });
        localStorage.setItem('annostore.draft.' + (900000 + i), JSON.stringify({ etag: '"x"', savedAt: i, doc: { objects: [] } }));
      }
      localStorage.setItem('annostore.drafts', JSON.stringify(index));
    })()`);
    await page.goto(`${base}/images/${editId}?project=${projectId}`);
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
    await page.getByLabel('Class').selectOption(LONG);
    const box = (await page.locator('.stage').boundingBox())!;
    await page.mouse.click(box.x + box.width / 3, box.y + box.height / 3);
    await page.waitForFunction(`localStorage.getItem('annostore.draft.${editId}') !== null`);
    const kept = (await page.evaluate(`JSON.parse(localStorage.getItem('annostore.drafts')).map((d) => d.id)`)) as number[];
    assert.equal(kept.length, 20);
    assert.equal(kept.at(-1), editId);
    assert.equal(await page.evaluate(`localStorage.getItem('annostore.draft.900001')`), null, 'the oldest is dropped');
    assert.notEqual(await page.evaluate(`localStorage.getItem('annostore.draft.900002')`), null);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: 'Road survey' }).click();
    await page.locator('.tile img').first().waitFor();
    assert.equal(await page.evaluate(`localStorage.getItem('annostore.draft.${editId}')`), null, 'left on purpose: no draft');
    await page.context().close();
  });

  test('a draft the browser cannot keep is said so, and the edit goes on', async () => {
    const page = await signedIn(t.key);
    // The origin's storage filled to the brim: the next draft does not fit.
    await page.evaluate(`(() => {
      let size = 1 << 20;
      for (let i = 0; size > 16; i += 1) {
        try { localStorage.setItem('filler.' + i, 'x'.repeat(size)); } catch { size = Math.floor(size / 2); }
      }
    })()`);
    await page.goto(`${base}/images/${editId}?project=${projectId}`);
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
    await page.getByLabel('Class').selectOption(LONG);
    const box = (await page.locator('.stage').boundingBox())!;
    await page.mouse.click(box.x + box.width / 4, box.y + box.height / 4);
    await page.getByRole('status').filter({ hasText: 'too large for this browser to keep a draft' }).waitFor();
    assert.equal(await page.evaluate(`localStorage.getItem('annostore.draft.${editId}')`), null);
    await page.keyboard.press('Control+z');
    await page.context().close();
  });

  test('a 200-character class title widens no card, sidebar or page, and is whole on hover (1440 and 390)', async () => {
    for (const viewport of [WIDE, NARROW]) {
      const page = await signedIn(t.key, viewport);
      const label = viewport === WIDE ? 'wide' : 'narrow';
      const chip = page.locator('.project-card .chip', { hasText: 'traffic_sign_' });
      await chip.waitFor();
      assert.equal(await chip.getAttribute('title'), LONG);
      for (const card of await page.locator('.project-card').all()) {
        const width = await card.evaluate((e: Box): [number, number] => [e.scrollWidth, e.clientWidth]);
        assert.ok(width[0] <= width[1], `a project card at ${label}: ${width}`);
      }
      assert.ok((await pageWidth(page)) <= viewport.width, `the projects page at ${label}`);
      await shoot(page, `projects-${label}`);

      await page.goto(`${base}/projects/${projectId}/images`);
      await page.locator('.tile img').first().waitFor();
      assert.equal(await page.locator(`.facet-title[title="${LONG}"]`).count(), 1, 'the class is whole in its title');
      const sidebar = await fits(page, '.sidebar');
      assert.ok(sidebar.scroll <= sidebar.client, `the sidebar at ${label}: ${JSON.stringify(sidebar)}: ${await overflowing(page, '.sidebar')}`);
      assert.ok((await pageWidth(page)) <= viewport.width, `the gallery at ${label}`);
      await shoot(page, `gallery-${label}`);

      await page.goto(`${base}/images/${editId}?project=${projectId}`);
      await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
      const crumbs = await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('listitem').filter({ visible: true }).allTextContents();
      assert.deepEqual(crumbs.map((c) => c.slice(0, 8)), viewport === NARROW ? ['Road sur', 'long_ima'] : ['Projects', 'Road sur', 'long_ima'], 'a narrow window keeps the last two steps');
      const details = await fits(page, '.details');
      assert.ok(details.scroll <= details.client, `the image's details at ${label}: ${JSON.stringify(details)}: ${await overflowing(page, '.details')}`);
      const column = await fits(page, '.stage-column');
      assert.ok(column.scroll <= column.client, `the image's toolbars at ${label}: ${JSON.stringify(column)}: ${await overflowing(page, '.stage-column')}`);
      assert.ok((await pageWidth(page)) <= viewport.width, `the image view at ${label}: ${await pageWidth(page)}`);
      await shoot(page, `image-view-${label}`);
      await page.locator('.object-list li', { hasText: 'traffic_sign_' }).first().click();
      await page.locator('.object-panel').waitFor();
      const panel = await fits(page, '.details');
      assert.ok(panel.scroll <= panel.client, `the object panel at ${label}: ${JSON.stringify(panel)}: ${await overflowing(page, '.details')}`);
      assert.ok((await pageWidth(page)) <= viewport.width, `the image view with an object selected at ${label}`);
      await shoot(page, `editor-selected-${label}`);

      await page.goto(`${base}/tasks`);
      await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
      assert.ok((await pageWidth(page)) <= viewport.width, `the tasks page at ${label}`);
      await shoot(page, `tasks-${label}`);
      await page.context().close();
    }
  });

  test('empty states say what is empty: a project without images, filters that match none, a team without projects', async () => {
    const page = await signedIn(t.otherKey);
    const empty = page.locator('main').getByText(/^No projects yet\./);
    await empty.waitFor();
    assert.match((await empty.textContent())!, /choose or drop a folder below/i);
    assert.doesNotMatch((await empty.textContent())!, /annostore import/);
    await shoot(page, 'projects-empty-wide');
    await page.setViewportSize(NARROW);
    assert.ok((await pageWidth(page)) <= NARROW.width);
    await shoot(page, 'projects-empty-narrow');
    await page.context().close();

    const alpha = await signedIn(t.key);
    await alpha.goto(`${base}/projects/${emptyProjectId}/images`);
    await alpha.getByText('This project has no images yet.').waitFor();
    assert.equal(await alpha.getByText('No image matches these filters.').count(), 0);
    await checkAccessibility(alpha, 'the gallery of a project without images');
    await shoot(alpha, 'gallery-empty-project-wide');
    await alpha.setViewportSize(NARROW);
    assert.ok((await pageWidth(alpha)) <= NARROW.width);
    await shoot(alpha, 'gallery-empty-project-narrow');
    await alpha.setViewportSize(WIDE);
    await alpha.goto(`${base}/projects/${projectId}/images?name=zzz`);
    await alpha.getByText('No image matches these filters.').waitFor();
    await alpha.getByRole('button', { name: 'Clear the filters' }).click();
    await alpha.locator('.tile img').first().waitFor();
    assert.equal(new URL(alpha.url()).search, '');
    await alpha.context().close();
  });

  test('the drop zone lights up while something is dragged over it; a batch’s result stays until dismissed', async () => {
    const page = await signedIn(t.key);
    const zone = page.locator('section.import');
    await zone.dispatchEvent('dragover', { dataTransfer: await page.evaluateHandle('new DataTransfer()') });
    await page.locator('section.import.dragging').waitFor();
    await shoot(page, 'import-drag-over');
    await zone.dispatchEvent('dragleave', {});
    await page.locator('section.import.dragging').waitFor({ state: 'detached' });

    await page.goto(`${base}/projects/${projectId}/images?dataset=${bulkId}`);
    await page.getByLabel('Select b_0001.png').check();
    await page.getByRole('button', { name: 'Add tag' }).click();
    const result = page.locator('.batch-result');
    await result.filter({ hasText: 'done for 1 image' }).waitFor();
    await page.waitForTimeout(1500);
    assert.equal(await result.count(), 1, 'the result is still there');
    await checkAccessibility(page, 'the gallery with a batch’s result');
    await result.getByRole('button', { name: 'Dismiss' }).click();
    await result.waitFor({ state: 'detached' });
    await page.context().close();
  });

  test('an import shows no upload counter before there is something to upload, nor when nothing is; the tasks fit 390 px', async () => {
    const folder = path.join(tempDir('place-import'), 'Place import');
    fs.mkdirSync(folder);
    for (let i = 0; i < 3; i += 1) fs.writeFileSync(path.join(folder, `p_${i}.png`), await picture(64, 48, { seed: 40 + i }));
    const runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    const page = await signedIn(t.key);
    try {
      for (const round of [1, 2]) {
        await page.goto(`${base}/`);
        await page.locator('.import-state').waitFor({ state: 'attached' });
        // Every text the form's status line shows, however briefly.
        await page.evaluate(`(() => {
          window.shown = [];
          const state = document.querySelector('.import-state');
          new MutationObserver(() => window.shown.push(state.textContent)).observe(state, { subtree: true, childList: true, characterData: true });
        })()`);
        await page.getByLabel('Choose a folder…').setInputFiles(folder);
        await page.getByLabel('What will be imported').waitFor();
        if (round === 2) await page.getByLabel('Into').selectOption({ label: 'Place import' });
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await page.getByRole('status').filter({ hasText: 'Import finished.' }).waitFor({ timeout: 60_000 });
        const shown = (await page.evaluate('window.shown')) as string[];
        assert.ok(!shown.some((text) => /Uploaded 0 of 0/.test(text)), `round ${round}: ${shown.join(' | ')}`);
        if (round === 1) assert.ok(shown.some((text) => /Uploaded \d of 3/.test(text)), 'the counter shows while there is something to upload');
        else assert.ok(!shown.some((text) => /Uploaded/.test(text)), 'nothing to upload: no counter');
      }
    } finally {
      await runner.stop();
    }
    await page.setViewportSize(NARROW);
    await page.goto(`${base}/tasks`);
    await page.locator('.task-row').first().waitFor();
    assert.ok((await pageWidth(page)) <= NARROW.width, `the tasks page: ${await overflowing(page)}`);
    await shoot(page, 'tasks-narrow');
    await page.context().close();
  });

  test('every page fits a 390 px window', async () => {
    const page = await signedIn(t.key, NARROW);
    const pages: [string, string][] = [
      ['/', '.project-card'],
      [`/projects/${projectId}/images`, '.tile img'],
      [`/projects/${projectId}/images?dataset=${bulkId}`, '.tile img'],
      [`/images/${bulkImages[3]}?project=${projectId}&dataset=${bulkId}`, '.stage svg image'],
      [`/images/${editId}`, '.stage svg image'],
      ['/tasks', '.task-row'],
      ['/nowhere', 'main h1'],
    ];
    for (const [url, ready] of pages) {
      await page.goto(`${base}${url}`);
      await page.locator(ready).first().waitFor();
      await page.waitForTimeout(200);
      assert.ok((await pageWidth(page)) <= NARROW.width, `${url} is ${await pageWidth(page)} px wide: ${await overflowing(page)}`);
    }
    const read = await signedIn(t.readOnlyKey, NARROW);
    await read.goto(`${base}/images/${editId}`);
    await read.locator('.stage svg image').waitFor();
    assert.ok((await pageWidth(read)) <= NARROW.width, 'the image view of a read-only key');
    await read.goto(`${base}/sign-in`);
    await read.getByLabel('API key').waitFor();
    assert.ok((await pageWidth(read)) <= NARROW.width, 'the sign-in page');
    await shoot(read, 'sign-in-narrow');
    await read.setViewportSize(WIDE);
    await shoot(read, 'sign-in-wide');
    await read.context().close();
    await page.context().close();
  });
});
