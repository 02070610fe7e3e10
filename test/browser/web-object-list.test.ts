// The image view's list of objects on an image with 600 of them, in a real Chromium: only the rows in
// view are in the page, yet the list is one labelled list of 600 for assistive technology; scrolling
// shows the rows further down, hovering a row highlights its shape, selecting a shape on the image
// brings its row into view, and the keyboard walks the whole list. Checked with axe-core.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { AnnotationObject } from '../../src/formats/canonical.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web object list tests');

const COUNT = 600;
const ACROSS = 30;
/** The centre of object i (0-based) on a grid of squares of 30 pixels, 40 apart. */
const centre = (i: number): [number, number] => [20 + (i % ACROSS) * 40, 20 + Math.floor(i / ACROSS) * 40];

describe('the object list of an image with 600 objects', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    const projectId = await newProject(t.ctx, { title: 'Many', classes: [{ title: 'cell', shape: 'polygon', color: '#1E88E5' }] });
    const ds = await newDataset(t.ctx, projectId, 'slides');
    const objects: AnnotationObject[] = Array.from({ length: COUNT }, (_, i) => {
      const [x, y] = centre(i);
      return { classTitle: 'cell', description: '', tags: i === 5 ? ['dividing'] : [], bitmap: null, points: { exterior: [[x - 15, y - 15], [x + 15, y - 15], [x + 15, y + 15], [x - 15, y + 15]], interior: [] } };
    });
    const image = await newImage(t.ctx, ds, { name: 'many.png', bytes: await picture(1200, 800, { seed: 5 }), width: 1200, height: 800, objects });
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    // axe is added to the page as a script of its own, which the page's policy would refuse.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
    await page.goto(`${base}/images/${image.id}`);
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const list = () => page.getByRole('list', { name: `Objects (${COUNT})` });
  const row = (position: number) => list().locator(`li[aria-posinset="${position}"]`);
  /** Whether the row is wholly inside the list's visible box. */
  const rowInView = (position: number) =>
    row(position).evaluate((li) => {
      const box = li.getBoundingClientRect();
      const frame = li.closest('.object-scroller')!.getBoundingClientRect();
      return box.top >= frame.top - 1 && box.bottom <= frame.bottom + 1;
    });

  test('the list is one labelled list of every object, with only the rows in view in the page', async () => {
    assert.equal(await page.locator('.stage svg .object').count(), COUNT, 'every shape is drawn');
    const rows = await list().getByRole('listitem').count();
    assert.ok(rows > 10 && rows < 60, `${rows} rows in the page`);
    assert.equal(await row(1).getAttribute('aria-setsize'), String(COUNT));
    assert.match((await row(6).textContent())!, /cell.*dividing.*#6/);

    await checkAccessibility(page, 'the object list');
  });

  test('scrolling shows the rows further down, and hovering one highlights its shape', async () => {
    await page.locator('.object-scroller').evaluate((el) => el.scrollTo({ top: 300 * 30 }));
    await row(301).waitFor();
    assert.equal(await row(1).count(), 0, 'the rows scrolled away left the page');
    const id = await row(305).getAttribute('data-object-id');
    await row(305).hover();
    await page.locator(`.stage svg .object.hovered[data-object-id="${id}"]`).waitFor();
  });

  test('a shape selected on the image brings its row into view', async () => {
    await page.locator('.object-scroller').evaluate((el) => el.scrollTo({ top: 0 }));
    await row(1).waitFor();
    const m = (await page.evaluate(`(() => { const m = document.querySelector('.stage svg > g').getScreenCTM(); return { a: m.a, e: m.e, f: m.f }; })()`)) as { a: number; e: number; f: number };
    const [x, y] = centre(589);
    await page.mouse.click(m.e + m.a * x, m.f + m.a * y);
    await page.getByRole('heading', { name: 'Selected: cell #590' }).waitFor();
    await row(590).and(page.locator('[aria-current="true"]')).waitFor();
    assert.ok(await rowInView(590), 'the selected row is in view');
    await page.keyboard.press('Escape');
  });

  test('the keyboard walks the whole list, the focused row following into view', async () => {
    await page.locator('.object-scroller').evaluate((el) => el.scrollTo({ top: 0 }));
    await row(1).focus();
    await page.keyboard.press('End');
    await row(COUNT).and(page.locator(':focus')).waitFor();
    assert.ok(await rowInView(COUNT));
    await page.keyboard.press('ArrowUp');
    await row(COUNT - 1).and(page.locator(':focus')).waitFor();
    await page.keyboard.press('Home');
    await row(1).and(page.locator(':focus')).waitFor();
    await page.keyboard.press('ArrowDown');
    await row(2).and(page.locator(':focus')).waitFor();
    // Enter selects the focused row's object.
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Selected: cell #2' }).waitFor();
  });
});
