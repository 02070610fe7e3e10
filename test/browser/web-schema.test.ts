// A project's schema edited in a real Chromium: a project created, datasets and classes added (their
// colours the palette's, pairwise apart), a rectangle-only project given a polygon class from the
// editor and a polygon drawn with it, classes renamed, recoloured and deleted, a dataset and the
// project deleted, each delete saying first what goes with it; a change someone else made meanwhile
// is a 412, not overwritten. Each page is checked with axe-core and photographed at 1440×900 and
// 390×844 (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { colorDistance } from '../../src/formats/class-colors.ts';
import { checkAccessibility, launchChromium, shootWideAndNarrow, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web schema tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-schema-shots');
const WIDTH = 640;
const HEIGHT = 480;
const TRIANGLE: [number, number][] = [[10, 10], [90, 10], [50, 80]];

interface Class {
  id: number;
  title: string;
  shape: string;
  color: string;
}

describe('a project’s schema edited in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  const api = async <T>(method: 'GET' | 'PATCH', url: string, payload?: object): Promise<{ status: number; body: T }> => {
    const res = await t.request({ method, url, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: (res.body ? json<T>(res) : undefined) as T };
  };
  const classesOf = async (projectId: number) => (await api<{ items: Class[] }>('GET', `/v2/projects/${projectId}/classes`)).body.items;

  async function signedIn(key: string, viewport = { width: 1440, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, key);
    return page;
  }

  before(async () => {
    t = await startTestApp(dialects[0]!);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('a project is created in the browser and given datasets and 12 classes of distinct colours', async () => {
    const page = await signedIn(t.key);
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByLabel('Title').fill('Chess boards');
    await page.getByLabel('Description').fill('Pieces on boards, one box each');
    await checkAccessibility(page, 'the projects page with the new project form');
    await shootWideAndNarrow(page, SHOTS, 'projects-new');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Settings of Chess boards', level: 1 }).waitFor();
    const projectId = Number(/\/projects\/(\d+)\/settings$/.exec(page.url())?.[1]);
    const project = await api<{ title: string; description: string }>('GET', `/v2/projects/${projectId}`);
    assert.deepEqual([project.body.title, project.body.description], ['Chess boards', 'Pieces on boards, one box each']);

    await page.getByLabel('New dataset').fill('boards');
    await page.getByRole('button', { name: 'Add dataset' }).click();
    await page.getByRole('list', { name: 'Datasets' }).getByRole('link', { name: 'boards' }).waitFor();
    await page.getByRole('button', { name: 'Rename boards' }).click();
    await page.getByLabel('New title of boards').fill('tables');
    await page.getByRole('button', { name: 'Save title' }).click();
    await page.getByRole('list', { name: 'Datasets' }).getByRole('link', { name: 'tables' }).waitFor();
    const datasets = await api<{ items: { title: string }[] }>('GET', `/v2/datasets?projectId=${projectId}`);
    assert.deepEqual(datasets.body.items.map((d) => d.title), ['tables']);

    const pieces = ['king', 'queen', 'rook', 'bishop', 'knight', 'pawn'].flatMap((p) => [`white ${p}`, `black ${p}`]);
    await page.getByText('Add a class').click();
    const form = page.getByRole('form', { name: 'New class' });
    for (const [i, title] of pieces.entries()) {
      await form.getByLabel('Title').fill(title);
      // The form keeps the shape last chosen.
      if (i <= 1) await form.getByLabel('Shape').selectOption(i === 0 ? 'polygon' : 'rectangle');
      await form.getByRole('button', { name: 'Add class' }).click();
      await page.getByRole('list', { name: 'Classes' }).getByText(title, { exact: true }).waitFor();
    }
    const classes = await classesOf(projectId);
    assert.deepEqual(classes.map((c) => c.title), pieces);
    assert.deepEqual([...new Set(classes.map((c) => c.shape))], ['polygon', 'rectangle']);
    for (let i = 0; i < classes.length; i += 1) {
      for (let j = i + 1; j < classes.length; j += 1) {
        assert.ok(colorDistance(classes[i]!.color, classes[j]!.color) >= 20, `${classes[i]!.title} ${classes[i]!.color} and ${classes[j]!.title} ${classes[j]!.color} alike`);
      }
    }
    await checkAccessibility(page, 'the project settings page');
    await shootWideAndNarrow(page, SHOTS, 'project-settings');
    await page.context().close();
  });

  test('a rectangle-only project gets a polygon class from the editor, and a polygon is drawn with it', async () => {
    const projectId = await newProject(t.ctx, { title: 'VOC street', classes: [{ title: 'car', shape: 'rectangle', color: '#e6194b' }, { title: 'person', shape: 'rectangle', color: '#00d200' }] });
    const datasetId = await newDataset(t.ctx, projectId, 'train');
    const image = await newImage(t.ctx, datasetId, { name: 'street.png', bytes: await picture(WIDTH, HEIGHT, { seed: 5 }), width: WIDTH, height: HEIGHT, objects: [] });
    const page = await signedIn(t.key);
    await page.goto(`${base}/images/${image.id}`);
    await page.locator('.stage svg > g > image').waitFor();
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
    const tools = page.getByRole('toolbar', { name: 'Editing tools' });
    assert.equal(await tools.getByRole('button', { name: 'Polygon' }).isEnabled(), true, 'offered, not disabled');

    await tools.getByRole('button', { name: 'Polygon' }).click();
    const dialog = page.getByRole('dialog', { name: 'New polygon class' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Shape').isDisabled(), true);
    await checkAccessibility(page, 'the editor’s new class dialog');
    await shootWideAndNarrow(page, SHOTS, 'editor-new-class');
    await dialog.getByLabel('Title').fill('road');
    await dialog.getByRole('button', { name: 'Add class' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await tools.getByRole('button', { name: 'Polygon' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('.class-picker select').inputValue(), 'road');
    const road = (await classesOf(projectId)).find((c) => c.title === 'road')!;
    assert.equal(road.shape, 'polygon');
    assert.ok(colorDistance(road.color, '#e6194b') >= 20 && colorDistance(road.color, '#00d200') >= 20, road.color);

    // Three clicks and the first again close the polygon; saved, it is read back with its class.
    const m = (await page.evaluate(`(() => { const m = document.querySelector('.stage svg > g').getScreenCTM(); return { a: m.a, e: m.e, f: m.f }; })()`)) as { a: number; e: number; f: number };
    const at = (x: number, y: number): [number, number] => [Math.round(m.e + m.a * x), Math.round(m.f + m.a * y)];
    for (const [x, y] of [[100, 100], [300, 120], [200, 300], [100, 100]] as const) await page.mouse.click(...at(x, y));
    await page.locator('.object-list li', { hasText: 'road' }).waitFor();
    await page.keyboard.press('Control+s');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const stored = await api<{ objects: { classTitle: string; points: { exterior: number[][] } }[] }>('GET', `/v2/images/${image.id}/annotation`);
    assert.deepEqual(stored.body.objects.map((o) => o.classTitle), ['road']);
    const exterior = stored.body.objects[0]!.points.exterior;
    assert.equal(exterior.length, 3);
    exterior.forEach(([x, y], i) => {
      const [ex, ey] = [[100, 100], [300, 120], [200, 300]][i]!;
      assert.ok(Math.abs(x! - ex!) < 2 / m.a + 0.5 && Math.abs(y! - ey!) < 2 / m.a + 0.5, `vertex ${i}: ${x},${y}`);
    });
    await page.context().close();
  });

  test('classes are renamed, recoloured and deleted, a dataset and the project deleted, each delete saying first what goes', async () => {
    const projectId = await newProject(t.ctx, { title: 'Traffic', classes: [{ title: 'car', shape: 'polygon', color: '#e6194b' }, { title: 'bus', shape: 'polygon', color: '#00d200' }] });
    const datasetId = await newDataset(t.ctx, projectId, 'morning');
    await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE), polygon('bus', TRIANGLE), polygon('car', TRIANGLE)] });
    await newImage(t.ctx, datasetId, { objects: [polygon('car', TRIANGLE)] });
    const page = await signedIn(t.key);
    await page.getByRole('listitem').filter({ hasText: 'Traffic' }).getByRole('link', { name: 'Settings: datasets and classes' }).waitFor();
    await page.getByRole('link', { name: 'Traffic' }).click();
    await page.getByRole('link', { name: 'Edit datasets and classes' }).click();
    await page.getByRole('heading', { name: 'Settings of Traffic' }).waitFor();
    const [car, bus] = await classesOf(projectId);
    const classRows = page.getByRole('list', { name: 'Classes' }).getByRole('listitem');
    await classRows.filter({ hasText: 'car' }).getByText('2 images').waitFor();
    await classRows.filter({ hasText: 'bus' }).getByText('1 image', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Rename car' }).click();
    await page.getByLabel('New title of car').fill('automobile');
    await page.getByRole('button', { name: 'Save title' }).click();
    await page.getByRole('button', { name: 'Rename automobile' }).waitFor();
    const objects = await api<{ data: { objects: { classTitle: string }[] } }[]>('GET', `/v1/annotations?projectId=${projectId}`);
    assert.deepEqual(objects.body.map((r) => r.data.objects.map((o) => o.classTitle)), [['automobile', 'bus', 'automobile'], ['automobile']]);

    await page.getByRole('button', { name: 'Colour of automobile' }).click();
    // The bus's colour is marked as another class's.
    await page.getByRole('radio', { name: '#00d200 (like another class’s)' }).waitFor();
    await page.getByRole('radio', { name: /^#00c3ff/ }).click();
    // The palette is a radio group: the arrows move the choice.
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByRole('radio', { name: /^#964b00/ }).getAttribute('aria-checked'), 'true');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.getByRole('radio', { name: /^#00c3ff/ }).getAttribute('aria-checked'), 'true');
    await shootWideAndNarrow(page, SHOTS, 'project-settings-colour');
    await page.getByRole('button', { name: 'Save colour' }).click();
    await page.getByRole('button', { name: 'Colour of automobile' }).waitFor();
    assert.equal((await api<Class>('GET', `/v2/classes/${car!.id}`)).body.color, '#00c3ff');

    // Someone else renames the bus while this page has its rename open: the save is refused, not made.
    // The form opens once the page has read the class it edits: the other rename comes after that read.
    await page.getByRole('button', { name: 'Rename bus' }).click();
    await page.getByLabel('New title of bus').waitFor();
    assert.equal((await api('PATCH', `/v2/classes/${bus!.id}`, { title: 'coach' })).status, 200);
    await page.getByLabel('New title of bus').fill('omnibus');
    await page.getByRole('button', { name: 'Save title' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone changed this meanwhile' }).waitFor();
    await page.getByRole('button', { name: 'Rename coach' }).waitFor();
    assert.equal((await api<Class>('GET', `/v2/classes/${bus!.id}`)).body.title, 'coach');

    await page.getByRole('button', { name: 'Delete automobile' }).click();
    const classDialog = page.getByRole('dialog', { name: 'Delete the class “automobile”?' });
    await classDialog.getByText('3 objects on 2 images are of this class').waitFor();
    await checkAccessibility(page, 'a class delete asked');
    await shootWideAndNarrow(page, SHOTS, 'project-settings-delete-class');
    await classDialog.getByRole('button', { name: 'Delete class' }).click();
    await classDialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Delete automobile' }).waitFor({ state: 'detached' });
    assert.equal((await api('GET', `/v2/classes/${car!.id}`)).status, 404);
    const left = await api<{ data: { objects: { classTitle: string }[] } }[]>('GET', `/v1/annotations?projectId=${projectId}`);
    assert.deepEqual(left.body.map((r) => r.data.objects.map((o) => o.classTitle)), [['coach'], []]);

    // A read-only key sees the schema and no way to change it.
    const reader = await signedIn(t.readOnlyKey);
    await reader.goto(`${base}/projects/${projectId}/settings`);
    await reader.getByRole('heading', { name: 'Settings of Traffic' }).waitFor();
    await reader.getByText('coach', { exact: true }).waitFor();
    await reader.getByText(/only its managers change its settings/).waitFor();
    assert.equal(await reader.getByRole('button', { name: /Delete|Rename|Add/ }).count(), 0);
    await reader.context().close();

    await page.getByRole('button', { name: 'Delete morning' }).click();
    const datasetDialog = page.getByRole('dialog', { name: 'Delete the dataset “morning”?' });
    await datasetDialog.getByText('Its 2 images and 1 object are deleted with it').waitFor();
    await datasetDialog.getByRole('button', { name: 'Delete dataset' }).click();
    await page.getByText('No datasets yet').waitFor();
    assert.equal((await api('GET', `/v2/datasets/${datasetId}`)).status, 404);

    await page.getByRole('button', { name: 'Delete project…' }).click();
    const projectDialog = page.getByRole('dialog', { name: 'Delete the project “Traffic”?' });
    await projectDialog.getByText('0 datasets').waitFor();
    assert.match((await projectDialog.textContent()) ?? '', /0 datasets, 0 images, 0 objects, 1 class and its tags/);
    const confirm = projectDialog.getByRole('button', { name: 'Delete project' });
    assert.equal(await confirm.isDisabled(), true, 'not before the title is typed');
    await projectDialog.getByLabel('Type Traffic to confirm').fill('Traffic');
    await checkAccessibility(page, 'a project delete asked');
    await shootWideAndNarrow(page, SHOTS, 'project-settings-delete-project');
    await confirm.click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    assert.equal((await api('GET', `/v2/projects/${projectId}`)).status, 404);
    await page.context().close();
  });
});
