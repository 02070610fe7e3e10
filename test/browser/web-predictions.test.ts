// Predictions in the image view, in a real Chromium: drawn dashed above a score threshold the slider
// moves; one accepted into the annotation (undone and redone as one step), one rejected, saved, and
// read back through API v2. Photographed at a desktop and a phone size, checked with axe-core.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web prediction tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-prediction-shots');
const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

describe('predictions in the image view in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let imageId: number;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    const projectId = await newProject(t.ctx, {
      title: 'Review',
      classes: [
        { title: 'car', shape: 'rectangle', color: '#E53935' },
        { title: 'road', shape: 'polygon', color: '#1E88E5' },
      ],
    });
    const dataset = await newDataset(t.ctx, projectId, 'street');
    imageId = (
      await newImage(t.ctx, dataset, {
        name: 'street.png',
        bytes: await picture(640, 480, { seed: 5 }),
        width: 640,
        height: 480,
        objects: [polygon('road', [[0, 400], [640, 380], [640, 480], [0, 480]])],
      })
    ).id;
    const res = await t.request({
      method: 'PUT',
      url: `/v2/images/${imageId}/predictions`,
      payload: {
        model: 'detector-v3',
        objects: [
          { classTitle: 'car', points: { exterior: [[100, 200], [220, 300]] }, score: 0.92 },
          { classTitle: 'car', points: { exterior: [[400, 220], [470, 280]] }, score: 0.3 },
          { classTitle: 'road', points: { exterior: [[0, 390], [640, 370], [640, 480], [0, 480]] }, score: 0.71 },
        ],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  async function open(viewport: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
    await page.goto(`${base}/images/${imageId}`);
    await page.locator('.stage svg > g > image').waitFor();
    await page.getByRole('heading', { name: /^Predictions/ }).waitFor();
    return page;
  }
  const dashed = (page: Page) => page.locator('.stage .predictions [data-prediction]').count();

  test('drawn dashed above the threshold; the slider shows more; accept one, undo, redo, reject one, save', async () => {
    const page = await open({ width: 1440, height: 900 });
    assert.equal(await dashed(page), 2, 'the car at 0.92 and the road at 0.71; not the car at 0.30');
    assert.equal(await page.locator('.stage .predictions [data-prediction]').first().getAttribute('stroke-dasharray'), '6 4');
    await shoot(page, 'predictions-1440');
    await checkAccessibility(page, 'the image view with predictions');

    await page.getByLabel('Score threshold').fill('0.25');
    await page.getByRole('heading', { name: 'Predictions (3)' }).waitFor();
    assert.equal(await dashed(page), 3);

    await page.getByRole('button', { name: 'Accept car 0.92' }).click();
    await page.getByRole('heading', { name: 'Predictions (2)' }).waitFor();
    await page.locator('.object-list li', { hasText: 'car' }).waitFor();
    await shoot(page, 'predictions-accepted-1440');
    await page.keyboard.press('Control+z');
    await page.getByRole('heading', { name: 'Predictions (3)' }).waitFor();
    assert.equal(await page.locator('.object-list li', { hasText: 'car' }).count(), 0, 'undo takes the object out and the prediction back');
    await page.keyboard.press('Control+y');
    await page.getByRole('heading', { name: 'Predictions (2)' }).waitFor();

    await page.getByRole('button', { name: 'Reject road 0.71' }).click();
    await page.getByRole('heading', { name: 'Predictions (1)' }).waitFor();
    const stored = JSON.parse((await t.request({ method: 'GET', url: `/v2/images/${imageId}/predictions` })).body) as { models: { objects: { classTitle: string; score: number }[] }[] };
    assert.deepEqual(stored.models[0]!.objects.map((o) => [o.classTitle, o.score]), [['car', 0.92], ['car', 0.3]]);

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const annotation = JSON.parse((await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` })).body) as { objects: { classTitle: string; points: { exterior: number[][] } }[] };
    assert.deepEqual(annotation.objects.map((o) => [o.classTitle, o.points.exterior]), [
      ['road', [[0, 400], [640, 380], [640, 480], [0, 480]]],
      ['car', [[100, 200], [220, 300]]],
    ]);
    await page.context().close();
  });

  test('the gallery filters by prediction score, in the URL', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
    const projectId = (await t.ctx.db.kysely.selectFrom('images').select('project_id').where('id', '=', imageId).executeTakeFirstOrThrow()).project_id;
    await page.goto(`${base}/projects/${projectId}/images?predicted=0.95`);
    await page.getByText('No image matches these filters.').waitFor();
    await page.getByLabel('Predictions').selectOption('0.9');
    await page.waitForURL(/predicted=0\.9(&|$)/);
    // The image whose prediction scores 0.9 or more, not only the empty result gone (it goes while the
    // page asks again).
    await page.locator('.tile-link[title="street.png"]').waitFor();
    assert.equal(await page.getByText('No image matches these filters.').count(), 0);
    await shoot(page, 'gallery-predicted-1440');
    await checkAccessibility(page, 'the gallery filtered by predictions');
    await context.close();
  });

  test('the gallery lists the images a model disagrees with, its score and IoU in the URL', async () => {
    const projectId = (await t.ctx.db.kysely.selectFrom('images').select('project_id').where('id', '=', imageId).executeTakeFirstOrThrow()).project_id;
    const datasetId = (await t.ctx.db.kysely.selectFrom('images').select('dataset_id').where('id', '=', imageId).executeTakeFirstOrThrow()).dataset_id;
    // An image the model gets right: its one car, found at 0.9; and one it gets a little off.
    const car = [[300, 200], [420, 300]];
    for (const [name, found] of [['quiet.png', car], ['near.png', [[330, 200], [450, 300]]]] as const) {
      const id = (await newImage(t.ctx, datasetId, { name, bytes: await picture(640, 480, { seed: name.length }), width: 640, height: 480, objects: [polygon('car', car as [number, number][])] })).id;
      const put = await t.request({ method: 'PUT', url: `/v2/images/${id}/predictions`, payload: { model: 'detector-v3', objects: [{ classTitle: 'car', points: { exterior: found }, score: 0.9 }] } });
      assert.equal(put.statusCode, 200, put.body);
    }
    const tileNames = (page: Page) => page.locator('.tile-link').evaluateAll((links) => links.map((a) => a.getAttribute('title')).sort());
    for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
      const context = await browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page, base, t.key);
      await page.goto(`${base}/projects/${projectId}/images`);
      await page.getByLabel('Disagrees with the annotation').selectOption('detector-v3');
      await page.waitForURL(/disagreeModel=detector-v3/);
      // IoU of the near car: 90 × 100 / (150 × 100) = 0.6.
      await page.waitForFunction("document.querySelectorAll('.tile-link').length === 1");
      assert.deepEqual(await tileNames(page), ['street.png']);
      await page.getByLabel('IoU ≥').selectOption('0.65');
      await page.waitForURL(/disagreeIou=0\.65/);
      await page.waitForFunction("document.querySelectorAll('.tile-link').length === 2");
      assert.deepEqual(await tileNames(page), ['near.png', 'street.png']);
      await page.getByLabel('Score ≥').selectOption('0.25');
      await page.waitForURL(/disagreeScore=0\.25/);
      await shoot(page, `gallery-disagrees-${viewport.width}`);
      await checkAccessibility(page, 'the gallery filtered by disagreement');
      await page.reload();
      await page.waitForFunction("document.querySelectorAll('.tile-link').length === 2");
      assert.equal(await page.getByLabel('IoU ≥').inputValue(), '0.65');
      await page.getByLabel('Disagrees with the annotation').selectOption('');
      await page.waitForFunction("document.querySelectorAll('.tile-link').length === 3");
      assert.doesNotMatch(page.url(), /disagree/);
      await context.close();
    }
  });

  test('the evaluation page: figures, the curve, and the worst images linked to the image view', async () => {
    const projectId = (await t.ctx.db.kysely.selectFrom('images').select('project_id').where('id', '=', imageId).executeTakeFirstOrThrow()).project_id;
    for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
      const context = await browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page, base, t.key);
      if (viewport.width === 1440) {
        // From the gallery: the page lists the project's models, and the choice goes into the address.
        await page.goto(`${base}/projects/${projectId}/images`);
        await page.getByRole('link', { name: 'Evaluate a model' }).click();
        await page.getByLabel('Model').selectOption('detector-v3');
        await page.getByLabel('Compare').selectOption('segm');
        await page.getByRole('heading', { name: 'Evaluation of detector-v3 (masks)' }).waitFor();
        assert.match(page.url(), /\/evaluation\?model=detector-v3&iouType=segm$/);
        await page.getByLabel('Compare').selectOption('bbox');
        await page.getByRole('heading', { name: 'Evaluation of detector-v3 (boxes)' }).waitFor();
      } else {
        await page.goto(`${base}/projects/${projectId}/evaluation?model=detector-v3`);
      }
      await page.getByRole('heading', { name: 'Worst images first' }).waitFor();
      await page.getByRole('img', { name: /Precision against recall/ }).waitFor();
      await shoot(page, `evaluation-${viewport.width}`);
      await checkAccessibility(page, `the evaluation page at ${viewport.width}`);
      if (viewport.width === 1440) {
        await page.getByRole('link', { name: 'street.png' }).click();
        await page.locator('.stage svg > g > image').waitFor();
        assert.match(page.url(), new RegExp(`/images/${imageId}$`));
      }
      await context.close();
    }
  });

  test('at a phone’s size the panel is there and accessible; the accepted prediction stays accepted', async () => {
    const page = await open({ width: 390, height: 844 });
    await page.getByLabel('Score threshold').fill('0.25');
    await page.getByRole('heading', { name: 'Predictions (1)' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Accept car 0.30' }).count(), 1, 'only the car at 0.30 is left to review');
    await page.getByRole('heading', { name: /^Predictions/ }).scrollIntoViewIfNeeded();
    await shoot(page, 'predictions-390');
    await checkAccessibility(page, 'the image view with predictions on a phone');
    await page.context().close();
  });
});
