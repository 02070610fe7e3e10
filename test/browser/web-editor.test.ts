// The image view as an annotation editor, in a real Chromium: each shape drawn with the mouse, a
// vertex moved, undo and redo, a class changed, saved, and read back through the API with the
// coordinates the mouse positions and the view's transform give. Two browsers on one image: the
// second save meets the first, is not written, and the user chooses. A read-only key gets no tools.
// Every step is checked with axe-core and photographed (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { checkAccessibility, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web editor tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-editor-shots');

const WIDTH = 640;
const HEIGHT = 480;

interface StoredObject {
  id: number;
  classTitle: string;
  tags: string[];
  bitmap: { origin: number[]; data: string } | null;
  points: { exterior: number[][]; interior: number[][][] };
}
interface Stored {
  description: string;
  tags: string[];
  objects: StoredObject[];
}

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

/** The view's transform: image pixel (x, y) shows at screen (e + a·x, f + a·y). */
async function transformOf(page: Page): Promise<{ a: number; e: number; f: number }> {
  return (await page.evaluate(`(() => { const m = document.querySelector('.stage svg > g').getScreenCTM(); return { a: m.a, e: m.e, f: m.f }; })()`)) as { a: number; e: number; f: number };
}

/**
 * Where to put the mouse for an image point (whole screen pixels, as a user's mouse is), and the
 * image point the editor will read there: what the test expects stored, to 1/100 pixel.
 */
function place(m: { a: number; e: number; f: number }, x: number, y: number): { screen: [number, number]; image: [number, number] } {
  const sx = Math.round(m.e + m.a * x);
  const sy = Math.round(m.f + m.a * y);
  const clamp = (v: number, max: number) => Math.round(Math.min(max, Math.max(0, v)) * 100) / 100;
  return { screen: [sx, sy], image: [clamp((sx - m.e) / m.a, WIDTH), clamp((sy - m.f) / m.a, HEIGHT)] };
}

const near = (actual: number[][], expected: number[][], label: string) => {
  assert.equal(actual.length, expected.length, `${label}: ${JSON.stringify(actual)}`);
  actual.forEach((p, i) => p.forEach((v, j) => assert.ok(Math.abs(v - expected[i]![j]!) <= 0.011, `${label}: ${JSON.stringify(actual)} against ${JSON.stringify(expected)}`)));
};

describe('the annotation editor in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let imageId: number;
  let flagClassId: number;

  const stored = async (): Promise<Stored> => JSON.parse((await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` })).body) as Stored;

  async function signedIn(key: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const p = await context.newPage();
    p.setDefaultTimeout(15_000);
    await p.goto(`${base}/`);
    await p.getByLabel('API key').fill(key);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    return p;
  }

  async function openImage(p: Page): Promise<void> {
    await p.goto(`${base}/images/${imageId}`);
    await p.locator('.stage svg > g > image').waitFor();
    await p.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
  }

  before(async () => {
    t = await startTestApp(dialects[0]!);
    const ctx = t.ctx;
    const projectId = await newProject(ctx, {
      title: 'Editing',
      classes: [
        { title: 'car', shape: 'polygon', color: '#E53935' },
        { title: 'person', shape: 'rectangle', color: '#1E88E5' },
        { title: 'lane', shape: 'line', color: '#FDD835' },
        { title: 'pin', shape: 'point', color: '#8E24AA' },
        { title: 'puddle', shape: 'bitmap', color: '#00ACC1' },
        { title: 'bus', shape: 'polygon', color: '#43A047' },
        { title: 'flag', shape: 'point', color: '#6D4C41' },
      ],
    });
    flagClassId = (await ctx.db.kysely.selectFrom('classes').select('id').where('title', '=', 'flag').executeTakeFirstOrThrow()).id;
    await newTag(ctx, projectId, { scope: 'figures', title: 'occluded', hotkey: 'q' });
    await newTag(ctx, projectId, { scope: 'images', title: 'night' });
    const ds = await newDataset(ctx, projectId, 'street');
    const image = await newImage(ctx, ds, { name: 'edit_me.png', bytes: await picture(WIDTH, HEIGHT, { seed: 3 }), width: WIDTH, height: HEIGHT, objects: [polygon('car', [[420, 300], [600, 300], [600, 440], [420, 440]])] });
    imageId = image.id;
    await newImage(ctx, ds, { name: 'next.png', bytes: await picture(WIDTH, HEIGHT, { seed: 4 }), width: WIDTH, height: HEIGHT, objects: [] });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await signedIn(t.key);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('each shape is drawn with the mouse, edited, undone and redone, and saved where the mouse put it', async () => {
    await openImage(page);
    await page.getByRole('toolbar', { name: 'Editing tools' }).waitFor();
    const m = await transformOf(page);
    const mouse = page.mouse;
    const click = async (p: { screen: [number, number] }) => mouse.click(...p.screen);

    // A rectangle, dragged from its bottom-right corner to its top-left one (stored left-top first).
    await page.keyboard.press('r');
    const r1 = place(m, 200, 150);
    const r2 = place(m, 100, 100);
    await mouse.move(...r1.screen);
    await mouse.down();
    await mouse.move(...r2.screen, { steps: 6 });
    await mouse.up();
    await page.locator('.object-list li', { hasText: 'person' }).waitFor();
    await shoot(page, 'editor-rectangle');

    // A polygon: three clicks, closed on its first point.
    await page.keyboard.press('p');
    const poly = [place(m, 300, 50), place(m, 400, 60), place(m, 350, 120)];
    for (const p of poly) await click(p);
    await shoot(page, 'editor-polygon-drawing');
    await click(poly[0]!);
    await page.locator('.object-list li', { hasText: 'car' }).nth(1).waitFor();

    // A line of two clicks, ended with Enter; a point, one click.
    await page.keyboard.press('l');
    const line = [place(m, 20, 300), place(m, 120, 320)];
    for (const p of line) await click(p);
    await page.keyboard.press('Enter');
    await page.locator('.object-list li', { hasText: 'lane' }).waitFor();
    await page.keyboard.press('o');
    const pin = place(m, 500, 200);
    await click(pin);
    await page.locator('.object-list li', { hasText: 'pin' }).waitFor();

    // A brush stroke on the bitmap class.
    await page.keyboard.press('b');
    const radius = Number(await page.getByLabel('Size').inputValue());
    const s1 = place(m, 50, 400);
    const s2 = place(m, 110, 400);
    await mouse.move(...s1.screen);
    await mouse.down();
    await mouse.move(...s2.screen, { steps: 8 });
    await mouse.up();
    await page.locator('.object-list li', { hasText: 'puddle' }).waitFor();
    await shoot(page, 'editor-brush');
    // The stroke is picked where it painted; the corner of its box, outside the round cap, is empty space.
    await page.keyboard.press('v');
    await click(place(m, 80, 400));
    await page.getByRole('heading', { name: /Selected: puddle \(new\)/ }).waitFor();
    await click(place(m, s1.image[0] - radius + 1.5, 400 - radius + 1.5));
    await page.getByRole('heading', { name: /Selected:/ }).waitFor({ state: 'detached' });

    // Select the new polygon and move its first vertex; a tag by its hotkey.
    await page.keyboard.press('v');
    await click(place(m, 350, 80));
    await page.getByRole('heading', { name: /Selected: car \(new\)/ }).waitFor();
    const moved = place(m, 310, 40);
    await mouse.move(...poly[0]!.screen);
    await mouse.down();
    await mouse.move(...moved.screen, { steps: 5 });
    await mouse.up();
    await page.keyboard.press('q');
    await page.getByRole('checkbox', { name: 'occluded' }).isChecked();
    await checkAccessibility(page, 'the editor with an object selected');
    await shoot(page, 'editor-selected');

    // The tag, then the vertex move, undone; both redone.
    const firstVertex = () => page.locator('.editor-overlay [data-handle="vertex:e:0"]').evaluate((el) => [Number(el.getAttribute('x')) + Number(el.getAttribute('width')) / 2, Number(el.getAttribute('y')) + Number(el.getAttribute('height')) / 2]);
    near([await firstVertex()], [moved.image], 'moved vertex');
    await page.keyboard.press('Control+z');
    assert.equal(await page.getByRole('checkbox', { name: 'occluded' }).isChecked(), false);
    await page.keyboard.press('Control+z');
    near([await firstVertex()], [poly[0]!.image], 'vertex after undo');
    await page.keyboard.press('Control+Shift+z');
    await page.keyboard.press('Control+y');
    near([await firstVertex()], [moved.image], 'vertex after redo');
    assert.equal(await page.getByRole('checkbox', { name: 'occluded' }).isChecked(), true);

    // Another class of the same shape.
    await page.locator('#object-class').selectOption('bus');
    await page.getByRole('heading', { name: /Selected: bus \(new\)/ }).waitFor();

    // An edge of the stored car polygon: a new vertex dragged out of it.
    await page.keyboard.press('Escape');
    await click(place(m, 500, 380));
    await page.getByRole('heading', { name: /Selected: car #1/ }).waitFor();
    const edge = place(m, 510, 300);
    const out = place(m, 510, 280);
    await mouse.move(...edge.screen);
    await mouse.down();
    await mouse.move(...out.screen, { steps: 4 });
    await mouse.up();

    // Pressed twice, the second while the first is on its way: not a conflict with itself. Every save
    // sent is answered (a second one, if the first was done before the key, goes against the new ETag).
    const puts = { sent: 0, answers: [] as number[] };
    const isSave = (r: { method(): string; url(): string }) => r.method() === 'PUT' && r.url().endsWith('/annotation');
    page.on('request', (r) => void (isSave(r) && (puts.sent += 1)));
    page.on('response', (r) => void (isSave(r.request()) && puts.answers.push(r.status())));
    await page.keyboard.press('Control+s');
    await page.keyboard.press('Control+s');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    for (const deadline = Date.now() + 10_000; puts.answers.length < puts.sent && Date.now() < deadline; ) await page.waitForTimeout(50);
    assert.ok(puts.sent >= 1);
    assert.deepEqual(puts.answers, Array.from({ length: puts.sent }, () => 200), 'every save answered 200, none 412');
    assert.equal(await page.locator('dialog.conflict[open]').count(), 0, 'no conflict with its own save');
    const saved = await stored();
    const byClass = (title: string) => saved.objects.filter((o) => o.classTitle === title);
    assert.deepEqual(saved.objects.map((o) => o.classTitle), ['car', 'person', 'bus', 'lane', 'pin', 'puddle']);
    assert.deepEqual(saved.objects.map((o) => o.id), [1, 2, 3, 4, 5, 6]);
    near(byClass('car')[0]!.points.exterior, [[420, 300], out.image, [600, 300], [600, 440], [420, 440]], 'car with its new vertex');
    near(byClass('person')[0]!.points.exterior, [r2.image, r1.image], 'rectangle');
    near(byClass('bus')[0]!.points.exterior, [moved.image, poly[1]!.image, poly[2]!.image], 'polygon');
    assert.deepEqual(byClass('bus')[0]!.tags, ['occluded']);
    near(byClass('lane')[0]!.points.exterior, line.map((p) => p.image), 'line');
    near(byClass('pin')[0]!.points.exterior, [pin.image], 'point');
    // The stroke's mask: from the first position less the radius to the last plus it (±1 pixel of rasterising).
    const mask = byClass('puddle')[0]!.bitmap!;
    const png = await sharp(zlib.inflateSync(Buffer.from(mask.data, 'base64'))).metadata();
    const [ox = 0, oy = 0] = mask.origin;
    assert.ok(Math.abs(ox - (s1.image[0] - radius)) <= 1.5 && Math.abs(oy - (s1.image[1] - radius)) <= 1.5, `mask origin ${mask.origin}`);
    assert.ok(Math.abs(png.width! - (s2.image[0] - s1.image[0] + 2 * radius)) <= 2 && Math.abs(png.height! - 2 * radius) <= 2, `mask ${png.width}×${png.height}`);
    await shoot(page, 'editor-saved');
  });

  test('a polygon keeps 3 points; a hole is cut and removed; what the server refuses stays beside its object', async () => {
    const m = await transformOf(page);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    // A line is picked a few pixels off its thin stroke.
    await page.mouse.click(...place(m, 70, 313).screen);
    await page.getByRole('heading', { name: /Selected: lane #4/ }).waitFor();
    await page.mouse.click(...place(m, 430, 310).screen);
    await page.getByRole('heading', { name: /Selected: car #1/ }).waitFor();
    await page.keyboard.press('h');
    for (const [x, y] of [[450, 350], [520, 350], [520, 400]] as const) await page.mouse.click(...place(m, x, y).screen);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Remove hole 1' }).waitFor();
    await shoot(page, 'editor-hole');
    await page.getByRole('button', { name: 'Remove hole 1' }).click();
    await page.getByRole('button', { name: 'Remove hole 1' }).waitFor({ state: 'detached' });

    // The bus triangle: its vertices cannot go under 3.
    await page.keyboard.press('v');
    await page.locator('.object-list li', { hasText: 'bus' }).click();
    await page.locator('.editor-overlay [data-handle="vertex:e:1"]').click();
    await page.keyboard.press('Delete');
    await page.getByRole('alert').filter({ hasText: 'a polygon needs at least 3 points' }).waitFor();

    // A class deleted on the server meanwhile (no stored object had it, so the annotation's tag stays):
    // the save is refused, and the object says why.
    await page.keyboard.press('o');
    await page.locator('.class-picker select').selectOption('flag');
    await page.mouse.click(...place(m, 40, 40).screen);
    const deleted = await t.request({ method: 'DELETE', url: `/v2/classes/${flagClassId}` });
    assert.equal(deleted.statusCode, 204, deleted.body);
    const before = await stored();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
    const row = page.locator('.object-list li.has-problem');
    await row.waitFor();
    assert.match((await row.textContent())!, /flag.*classTitle/);
    await page.getByRole('alert').filter({ hasText: 'Refused by the server' }).waitFor();
    assert.deepEqual(await stored(), before, 'nothing was written');
    await checkAccessibility(page, 'the editor with a refused save');
    await shoot(page, 'editor-refused');
    // Without the object the save goes through.
    await page.getByRole('button', { name: 'Delete object' }).click();
    await page.keyboard.press('Control+s');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  });

  test('unsaved changes ask before the page changes', async () => {
    const m = await transformOf(page);
    await page.keyboard.press('p');
    for (const [x, y] of [[20, 20], [80, 20], [50, 70]] as const) await page.mouse.click(...place(m, x, y).screen);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Unsaved changes' }).waitFor();
    const url = page.url();
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: 'Editing' }).click();
    assert.equal(page.url(), url);
    // Signing out asks too; refused, the session goes on.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Sign out' }).click();
    assert.equal(await page.evaluate(`fetch('/v2/session').then((r) => r.status)`), 200);
    await page.getByRole('toolbar', { name: 'Editing tools' }).waitFor();
    await page.keyboard.press('Control+z');
    await page.getByRole('status').filter({ hasText: 'Unsaved changes' }).waitFor({ state: 'detached' });

    // The shortcuts list has the editor's.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    assert.match((await help.textContent())!, /Ctrl\+Zundo/);
    await checkAccessibility(page, 'the shortcuts with the editor’s');
    await shoot(page, 'editor-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
  });

  test('two editors of one image: the later save is not written until its user chooses', async () => {
    const other = await signedIn(t.key);
    await openImage(other);
    await openImage(page);
    const theirs = await transformOf(other);

    // They add a point and save first.
    await other.keyboard.press('o');
    await other.mouse.click(...place(theirs, 600, 30).screen);
    await other.keyboard.press('Control+s');
    await other.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const afterTheirs = await stored();
    assert.equal(afterTheirs.objects.length, 7);

    // I remove the car and save: refused, shown side by side, nothing written.
    await page.locator('.object-list li', { hasText: 'car' }).first().click();
    await page.keyboard.press('Delete');
    await page.keyboard.press('Control+s');
    const dialog = page.getByRole('dialog', { name: 'Someone else changed this image' });
    await dialog.waitFor();
    assert.match((await dialog.textContent())!, /Theirs \(saved\): 7 objects/);
    assert.match((await dialog.textContent())!, /Yours \(not saved\): 5 objects/);
    assert.deepEqual(await stored(), afterTheirs);
    await checkAccessibility(page, 'the conflict view');
    await shoot(page, 'editor-conflict');

    // Keep mine: replaces theirs, on purpose.
    await dialog.getByRole('button', { name: 'Keep mine (replace theirs)' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const afterMine = await stored();
    assert.equal(afterMine.objects.length, 5);
    assert.ok(!afterMine.objects.some((o) => o.classTitle === 'car'));

    // They change something again: their save meets mine; they reload and see my version.
    await other.keyboard.press('o');
    await other.mouse.click(...place(theirs, 620, 60).screen);
    await other.keyboard.press('Control+s');
    const theirDialog = other.getByRole('dialog', { name: 'Someone else changed this image' });
    await theirDialog.waitFor();
    await theirDialog.getByRole('button', { name: 'Reload theirs' }).click();
    await theirDialog.waitFor({ state: 'hidden' });
    await other.getByRole('heading', { name: 'Objects (5)' }).waitFor();
    assert.deepEqual(await stored(), afterMine);
    await other.context().close();
  });

  test('a read-only key sees the objects and no editing tools', async () => {
    const reader = await signedIn(t.readOnlyKey);
    await openImage(reader);
    await reader.locator('svg .object').first().waitFor();
    assert.equal(await reader.getByRole('toolbar', { name: 'Editing tools' }).count(), 0);
    assert.equal(await reader.getByRole('heading', { name: 'Objects (5)' }).count(), 1);
    await reader.locator('svg .object').first().click();
    assert.equal(await reader.locator('.editor-overlay').count(), 0);
    await checkAccessibility(reader, 'the read-only view');
    await reader.context().close();
  });
});
