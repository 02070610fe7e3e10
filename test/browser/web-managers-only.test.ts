// Managers-only datasets in a real Chromium (docs/jobs.md "Ground truth", docs/web.md): the gallery's
// "Mark as ground truth" on an image of an ordinary dataset says in words why it is refused; on the
// project's settings the manager reads what a managers-only dataset is, marks one (and makes a new
// one) and each shows a badge, in the settings and in the gallery's datasets; marking ground truth
// there then works. An annotator sees neither the dataset nor its images. The settings, the gallery
// and the refusal are photographed at 1440×900 and 390×844 (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import * as members from '../../src/repositories/project-members.repository.ts';
import { createKey } from '../../src/services/keys.service.ts';
import { checkAccessibility, launchChromium, shootWideAndNarrow, signedInPage, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, userId } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web managers-only tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-managers-only-shots');

describe('managers-only datasets in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let projectId: number;
  let referenceId: number;
  let truthId: number;
  let annKey: string;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    annKey = await createKey(t.ctx.db.kysely, { team: 'alpha', user: 'ann' });
    projectId = await newProject(t.ctx, { title: 'Harbour', classes: [{ title: 'boat', shape: 'polygon', color: '#1F77B4' }] });
    await members.putMember(t.ctx.db.kysely, projectId, await userId(t.ctx, 'alpha', 'ann'), 'annotator');
    referenceId = await newDataset(t.ctx, projectId, 'reference');
    const work = await newDataset(t.ctx, projectId, 'work');
    truthId = (await newImage(t.ctx, referenceId, { name: 'truth.png', bytes: await picture(320, 240, { seed: 9 }), width: 320, height: 240 })).id;
    for (let i = 0; i < 2; i++) await newImage(t.ctx, work, { name: `w${i}.png`, bytes: await picture(320, 240, { seed: i }), width: 320, height: 240 });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('ground truth is refused in an ordinary dataset; the manager makes the dataset managers-only, and it shows a badge', async () => {
    const admin = await signedInPage(browser, base, t.adminKey);
    await admin.goto(`${base}/projects/${projectId}/images`);
    await admin.getByLabel('Select truth.png').check();
    const bar = admin.getByRole('region', { name: 'Selected images' });
    await bar.getByRole('button', { name: 'Mark as ground truth' }).click();
    const said = bar.getByRole('status');
    await said.getByText(`Marking failed: ground truth lives in managers-only datasets: image ${truthId} is in an ordinary dataset, which every role of the project sees`).waitFor();
    await shootWideAndNarrow(admin, SHOTS, 'managers-only-refused', false);
    const none = json<{ items: unknown[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/ground-truth` }));
    assert.deepEqual(none.items, [], 'nothing marked');

    // The settings say what a managers-only dataset is; the manager marks "reference" so.
    await admin.goto(`${base}/projects/${projectId}/settings`);
    await admin.getByText('is seen by the project’s managers alone').waitFor();
    const datasets = admin.getByRole('list', { name: 'Datasets' });
    assert.equal(await datasets.locator('.managers-badge').count(), 0);
    await admin.getByRole('checkbox', { name: 'reference: managers only' }).check();
    await datasets.getByRole('listitem').filter({ hasText: 'reference' }).locator('.managers-badge', { hasText: 'Managers only' }).waitFor();
    assert.equal((json<{ managersOnly: boolean }>(await t.request({ method: 'GET', url: `/v2/datasets/${referenceId}` }))).managersOnly, true);
    // A new dataset made managers-only from the start.
    await admin.getByLabel('New dataset').fill('more truth');
    await admin.locator('.add-dataset').getByRole('checkbox', { name: 'Managers only' }).check();
    await admin.getByRole('button', { name: 'Add dataset' }).click();
    await datasets.getByRole('listitem').filter({ hasText: 'more truth' }).locator('.managers-badge').waitFor();
    assert.equal(await datasets.locator('.managers-badge').count(), 2);
    assert.equal(await admin.getByRole('checkbox', { name: 'work: managers only' }).isChecked(), false);
    await checkAccessibility(admin, 'the settings with managers-only datasets');
    await shootWideAndNarrow(admin, SHOTS, 'managers-only-settings');

    // The gallery's datasets show the badge, and marking ground truth there works.
    await admin.goto(`${base}/projects/${projectId}/images`);
    const facets = admin.getByRole('complementary', { name: 'Filters' });
    await facets.getByRole('button', { name: /reference/ }).locator('.managers-badge').waitFor();
    await admin.getByLabel('Select truth.png').check();
    await bar.getByRole('button', { name: 'Mark as ground truth' }).click();
    await admin.locator('.batch-result', { hasText: 'Marked 1 image as ground truth' }).waitFor();
    await shootWideAndNarrow(admin, SHOTS, 'managers-only-gallery');
    // Made ordinary again while it holds ground truth: refused, in the server's words.
    await admin.goto(`${base}/projects/${projectId}/settings`);
    // (A click, not uncheck(): the refused box is checked again at once.)
    await admin.getByRole('checkbox', { name: 'reference: managers only' }).click();
    await admin.getByRole('alert').getByText(`dataset ${referenceId} holds ground truth, which lives in managers-only datasets: unmark it first`).waitFor();
    assert.equal(await admin.getByRole('checkbox', { name: 'reference: managers only' }).isChecked(), true, 'the list read again shows it as it is');
    // The jobs page offers no managers-only dataset to split.
    await admin.goto(`${base}/projects/${projectId}/jobs`);
    const split = admin.getByRole('form', { name: 'Split a dataset' });
    // The list comes with the project's datasets, after the page: its one choice first.
    await split.getByRole('combobox', { name: 'Dataset' }).locator('option', { hasText: 'work' }).waitFor({ state: 'attached' });
    assert.deepEqual(await split.getByRole('combobox', { name: 'Dataset' }).locator('option').allInnerTexts(), ['work']);
  });

  test('an annotator sees neither the managers-only datasets nor their images', async () => {
    const annotator = await signedInPage(browser, base, annKey);
    await annotator.goto(`${base}/projects/${projectId}/images`);
    await annotator.getByLabel('Select w0.png').waitFor();
    const facets = annotator.getByRole('complementary', { name: 'Filters' });
    assert.equal(await facets.getByRole('button', { name: /reference|more truth/ }).count(), 0);
    assert.equal(await annotator.getByLabel('Select truth.png').count(), 0);
    assert.equal(await annotator.locator('.managers-badge').count(), 0);
    await shootWideAndNarrow(annotator, SHOTS, 'managers-only-annotator-gallery');
    await annotator.goto(`${base}/projects/${projectId}/settings`);
    const datasets = annotator.getByRole('list', { name: 'Datasets' });
    await datasets.getByText('work').waitFor();
    assert.deepEqual(await datasets.locator('.row-title').allInnerTexts(), ['work']);
    await annotator.getByText(/only its managers change its settings/).waitFor();
    assert.equal(await annotator.getByText('is seen by the project’s managers alone').count(), 0);
    // Its image by address is missing, as any image that is not there.
    await annotator.goto(`${base}/images/${truthId}`);
    await annotator.getByText('This image does not exist, or your team cannot see it.').waitFor();
  });
});
