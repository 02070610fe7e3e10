// Tags and their values in a real Chromium: a oneof_string tag made in the project's tag manager,
// given a value on an object in the editor, saved, and read back through API v2; a tag renamed and
// one deleted after the page said how many carry it; a Pascal VOC folder imported through the API
// shows its objects' fields as values (`pose: Unspecified`) and edits them in inputs of their type.
// Screenshots at 1440×900 and 390×844 (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import pino from 'pino';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { importFolder } from '../helpers/export-round-trip.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { outsideFixtureCopy } from '../helpers/fixture-copy.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web tag tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-tags-shots');

interface Stored {
  objects: { id: number; tags: string[]; tagValues?: Record<string, string | number> }[];
}

describe('tags and their values in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let runner: TaskRunner;
  let base: string;
  let browser: Browser;
  let page: Page;
  let projectId: number;
  let imageId: number;

  const shoot = async (name: string, narrow = false) => {
    if (narrow) await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
    if (narrow) await page.setViewportSize({ width: 1440, height: 900 });
  };
  const stored = async (id: number): Promise<Stored> => json<Stored>(await t.request({ method: 'GET', url: `/v2/images/${id}/annotation` }));

  before(async () => {
    t = await startTestApp(dialects[0]!);
    runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    projectId = await newProject(t.ctx, { title: 'Street', classes: [{ title: 'car', shape: 'polygon', color: '#E53935' }] });
    const ds = await newDataset(t.ctx, projectId, 'street');
    const image = await newImage(t.ctx, ds, { name: 'car.png', bytes: await picture(640, 480, { seed: 5 }), width: 640, height: 480, objects: [polygon('car', [[120, 100], [420, 100], [420, 380], [120, 380]])] });
    imageId = image.id;
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
  });

  after(async () => {
    await browser?.close();
    await runner?.stop();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('a oneof_string tag made in the tag manager gets a value on an object, saved and read back through API v2', async () => {
    // The gallery's sidebar leads to the tag manager.
    await page.goto(`${base}/projects/${projectId}/images`);
    await page.getByRole('link', { name: 'Manage tags' }).click();
    await page.getByRole('heading', { name: 'Tags of Street', level: 1 }).waitFor();
    const form = page.locator('section', { has: page.getByRole('heading', { name: 'New tag' }) });
    await form.getByLabel('Title').fill('color');
    await form.getByLabel('On').selectOption('figures');
    await form.getByLabel('Hotkey').fill('k');
    await form.getByLabel('Value').selectOption('oneof_string');
    await form.getByLabel('Values, one a line').fill('red\nblue\ngreen');
    await form.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('status').filter({ hasText: 'Added tag "color".' }).waitFor();
    await page.getByRole('list', { name: 'Values of color' }).getByText('green').waitFor();

    // Another, of any number, renamed.
    await form.getByLabel('Title').fill('speed');
    await form.getByLabel('Value').selectOption('any_number');
    await form.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('status').filter({ hasText: 'Added tag "speed".' }).waitFor();
    await page.getByRole('button', { name: 'Edit speed' }).click();
    await page.locator('.tag-row').getByLabel('Title').fill('velocity');
    await page.getByRole('button', { name: 'Save tag' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved tag "velocity".' }).waitFor();
    const tags = json<{ items: { title: string; valueType: string; values?: string[]; hotkey: string }[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/tags` })).items;
    assert.deepEqual(tags.map((x) => [x.title, x.valueType, x.values ?? null, x.hotkey]), [
      ['color', 'oneof_string', ['red', 'blue', 'green'], 'k'],
      ['velocity', 'any_number', null, ''],
    ]);
    await checkAccessibility(page, 'the tag manager');
    await shoot('tags');
    await shoot('tags-narrow', true);

    // In the editor: the object selected, the tag checked, a value picked from the list, saved.
    await page.goto(`${base}/images/${imageId}`);
    await page.locator('.stage svg > g > image').waitFor();
    await page.locator('.object-list li', { hasText: 'car' }).click();
    await page.getByRole('checkbox', { name: 'color k' }).check();
    await page.getByLabel('color value of the object').selectOption('blue');
    await page.getByRole('checkbox', { name: 'velocity', exact: true }).check();
    await page.getByLabel('velocity value of the object').fill('12.5');
    await page.getByLabel('velocity value of the object').press('Tab');
    await page.locator('.object-list li', { hasText: 'color: blue, velocity: 12.5' }).waitFor();
    await shoot('editor-tag-values');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const [object] = (await stored(imageId)).objects;
    assert.deepEqual([object!.tags, object!.tagValues], [['color', 'velocity'], { color: 'blue', velocity: 12.5 }]);
    await checkAccessibility(page, 'the editor with tag values');

    // A list that would leave a value in use out is refused, naming it; a tag changed meanwhile is not overwritten.
    await page.goto(`${base}/projects/${projectId}/tags`);
    await page.getByRole('button', { name: 'Edit color' }).click();
    await page.locator('.tag-row').getByLabel('Values, one a line').fill('red\ngreen');
    await page.getByRole('button', { name: 'Save tag' }).click();
    await page.getByRole('alert').filter({ hasText: '1 object carries the value "blue"' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Edit color' }).click();
    await page.locator('.tag-row').getByLabel('Hotkey').fill('j');
    const color = json<{ items: { id: number; title: string }[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/tags` })).items.find((x) => x.title === 'color')!;
    assert.equal((await t.request({ method: 'PATCH', url: `/v2/tags/${color.id}`, payload: { hotkey: 'x' } })).statusCode, 200);
    await page.getByRole('button', { name: 'Save tag' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone changed this tag meanwhile' }).waitFor();
    await page.locator('.tag-row', { hasText: 'color' }).locator('kbd', { hasText: 'x' }).waitFor();

    // Deleting says how many carry it first.
    await page.getByRole('button', { name: 'Delete velocity' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete velocity?' });
    await dialog.getByText('1 object on 1 image carries it and will lose it.').waitFor();
    await shoot('tags-delete');
    await dialog.getByRole('button', { name: 'Delete tag' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted tag "velocity".' }).waitFor();
    const after = (await stored(imageId)).objects[0]!;
    assert.deepEqual([after.tags, after.tagValues], [['color'], { color: 'blue' }]);
  });

  test('a Pascal VOC object shows its fields as values, edited in inputs of their type', async () => {
    const source = await outsideFixtureCopy('roboflow-python/voc/chess');
    let voc: number;
    try {
      ({ projectId: voc } = await importFolder(t, source, 'pascal_voc'));
    } finally {
      fs.rmSync(path.dirname(source), { recursive: true, force: true });
    }
    const image = await t.ctx.db.kysely.selectFrom('images').select('id').where('project_id', '=', voc).where('name', '=', '1be.jpg').executeTakeFirstOrThrow();
    await page.goto(`${base}/images/${image.id}`);
    await page.locator('.stage svg > g > image').waitFor();
    const row = page.locator('.object-list li').first();
    await row.getByText('pose: Unspecified, truncated: 0, difficult: 0, occluded: 0').waitFor();
    await row.click();
    assert.equal(await page.getByLabel('pose value of the object').inputValue(), 'Unspecified');
    assert.equal(await page.getByLabel('truncated value of the object').getAttribute('type'), 'number');
    await page.getByLabel('difficult value of the object').fill('1');
    await page.getByLabel('difficult value of the object').press('Tab');
    await shoot('editor-voc-values');
    await shoot('editor-voc-values-narrow', true);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const first = (await stored(image.id)).objects[0]!;
    assert.deepEqual(first.tagValues, { pose: 'Unspecified', truncated: 0, difficult: 1, occluded: 0 });
  });
});
