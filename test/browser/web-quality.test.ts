// Quality in a real Chromium (docs/jobs.md "Quality", docs/web.md): a manager marks an image as
// ground truth from the gallery's selection bar, makes a job with one honeypot on the jobs page, the
// annotator saves (through the API) and submits the job, and the quality page shows the figures of
// GET /v2/projects/:id/quality per annotator, per class and per honeypot, and the ground-truth list.
// A viewer gets no Quality link and a clear message on the page. The quality page and the batch bar are
// photographed at 1440×900 and 390×844 (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createKey } from '../../src/services/keys.service.ts';
import * as members from '../../src/repositories/project-members.repository.ts';
import type { Figures } from '../../src/services/quality.service.ts';
import { checkAccessibility, launchChromium, shootWideAndNarrow, signedInPage, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon, userId } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { iou, percent } from '../../web/quality-figures.ts';

const chromiumSkip = skipWithoutChromium('web quality tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-quality-shots');

interface Report {
  matchIou: number;
  annotators: (Figures & {
    login: string;
    honeypots: number;
    classes: (Figures & { classTitle: string; honeypots: number })[];
    items: (Figures & { imageId: number; jobId: number | null; sourceImageId: number; name: string })[];
  })[];
}

/** The cells a row of figures shows, as the page formats the API's. */
const cells = (f: Figures): string[] => [percent(f.precision), percent(f.recall), iou(f.meanIou), String(f.truths), String(f.answers), String(f.matched)];
const square = (x: number, y: number, size: number) => polygon('boat', [[x, y], [x + size, y], [x + size, y + size], [x, y + size]]);

describe('quality in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let projectId: number;
  let truthId: number;
  const workIds: number[] = [];
  let workDataset: number;
  const keys = { ann: '', vwr: '' };

  before(async () => {
    t = await startTestApp(dialects[0]!);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    for (const login of ['ann', 'vwr'] as const) keys[login] = await createKey(t.ctx.db.kysely, { team: 'alpha', user: login });
    projectId = await newProject(t.ctx, { title: 'Harbour', classes: [{ title: 'boat', shape: 'polygon', color: '#1F77B4' }] });
    await members.putMember(t.ctx.db.kysely, projectId, await userId(t.ctx, 'alpha', 'vwr'), 'viewer');
    await members.putMember(t.ctx.db.kysely, projectId, await userId(t.ctx, 'alpha', 'ann'), 'annotator');
    // Ground truth lives in a managers-only dataset (web-managers-only.test.ts walks making one).
    const reference = await newDataset(t.ctx, projectId, 'reference', { managersOnly: true });
    const work = (workDataset = await newDataset(t.ctx, projectId, 'work'));
    // The truth: two boats; the annotator will find one of them well and draw one where there is none.
    truthId = (await newImage(t.ctx, reference, { name: 'truth.png', bytes: await picture(320, 240, { seed: 9 }), width: 320, height: 240, objects: [square(10, 10, 60), square(200, 100, 80)] })).id;
    for (let i = 0; i < 2; i++) workIds.push((await newImage(t.ctx, work, { name: `w${i}.png`, bytes: await picture(320, 240, { seed: i }), width: 320, height: 240 })).id);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('ground truth from the gallery, a job with a honeypot, and the report as the API answers it', async () => {
    const admin = await signedInPage(browser, base, t.adminKey);

    // Before any honeypot: the page says how to start, and the jobs form cannot ask for honeypots.
    // The page is an address of its own: loaded from the server, not only reached by a link.
    assert.equal((await admin.goto(`${base}/projects/${projectId}/quality`))?.status(), 200);
    const empty = admin.locator('.quality-empty');
    await empty.getByText('No honeypot has been submitted yet.').waitFor();
    assert.deepEqual(await empty.locator('strong').allInnerTexts(), ['Mark as ground truth', 'Honeypots per job'], 'the empty page says how to start');
    await admin.getByText('No image is ground truth yet.').waitFor();
    await shootWideAndNarrow(admin, SHOTS, 'quality-empty');
    await admin.goto(`${base}/projects/${projectId}/jobs`);
    const honeypots = admin.getByLabel('Honeypots per job');
    await admin.getByText('This project has no ground truth yet').waitFor();
    assert.equal(await honeypots.isDisabled(), true, 'no ground truth: the field is disabled');
    assert.equal(await honeypots.inputValue(), '0', 'no honeypot by default');
    await shootWideAndNarrow(admin, SHOTS, 'quality-jobs-no-ground-truth');

    // The manager selects the reference image in the gallery and marks it.
    await admin.goto(`${base}/projects/${projectId}/images`);
    await admin.getByLabel('Select truth.png').check();
    const bar = admin.getByRole('region', { name: 'Selected images' });
    await bar.getByRole('button', { name: 'Mark as ground truth' }).waitFor();
    await shootWideAndNarrow(admin, SHOTS, 'quality-batch-bar', false);
    await bar.getByRole('button', { name: 'Mark as ground truth' }).click();
    // The gallery is read again, the selection cleared, and what was done said until dismissed.
    await admin.locator('.batch-result', { hasText: 'Marked 1 image as ground truth' }).waitFor();
    const truth = json<{ items: { imageId: number; objects: number }[] }>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/ground-truth` }));
    assert.deepEqual(truth.items.map((g) => [g.imageId, g.objects]), [[truthId, 2]]);

    // The form of a job of the gallery's images takes honeypots too, now that there is ground truth.
    await admin.goto(`${base}/projects/${projectId}/jobs?dataset=${workDataset}&name=w`);
    const inTheJob = admin.getByLabel('Honeypots in the job');
    await admin.getByText('Copies of the project’s 1 ground-truth image').first().waitFor();
    assert.deepEqual([await inTheJob.isEnabled(), await inTheJob.inputValue()], [true, '0']);
    await admin.goto(`${base}/projects/${projectId}/images`);

    // A job of the work dataset for the annotator, with one honeypot.
    await admin.getByRole('link', { name: 'Jobs' }).click();
    await admin.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    await admin.getByRole('combobox', { name: 'Dataset' }).selectOption({ label: 'work' });
    await admin.getByRole('checkbox', { name: 'ann' }).check();
    await admin.getByText('Copies of the project’s 1 ground-truth image').first().waitFor();
    await honeypots.fill('1');
    await shootWideAndNarrow(admin, SHOTS, 'quality-jobs-honeypots');
    await admin.getByRole('button', { name: 'Make jobs' }).click();
    await admin.getByText('1 job made.').waitFor();

    // The annotator draws on each image of the job (the honeypot among them) and submits it.
    const job = json<{ items: { id: number }[] }>(await t.request({ method: 'GET', url: '/v2/jobs/mine', key: keys.ann })).items[0]!;
    const images = json<{ items: { imageId: number }[] }>(await t.request({ method: 'GET', url: `/v2/jobs/${job.id}/images`, key: keys.ann })).items;
    assert.equal(images.length, 3, 'two images and a honeypot');
    for (const { imageId } of images) {
      // The honeypot is the image of no dataset of the project's.
      const objects = workIds.includes(imageId) ? [square(30, 30, 40)] : [square(12, 12, 60), square(120, 20, 30)];
      const saved = await t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, key: keys.ann, payload: { objects } });
      assert.equal(saved.statusCode, 200, saved.body);
    }
    assert.equal((await t.request({ method: 'POST', url: `/v2/jobs/${job.id}/submit`, key: keys.ann })).statusCode, 200);

    // The quality page, from the gallery's link, shows the API's figures.
    const report = json<Report>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/quality` }));
    const ann = report.annotators[0]!;
    assert.deepEqual([report.annotators.length, ann.login, ann.honeypots, ann.truths, ann.answers, ann.matched], [1, 'ann', 1, 2, 2, 1]);
    // Precision and recall as percentages with one decimal, the mean IoU with three.
    assert.deepEqual(cells(ann).slice(0, 2), ['50.0%', '50.0%']);
    assert.match(cells(ann)[2]!, /^0\.\d{3}$/);
    await admin.goto(`${base}/projects/${projectId}/images`);
    await admin.getByRole('link', { name: 'Quality' }).click();
    await admin.getByRole('heading', { name: 'Quality', level: 1 }).waitFor();
    const table = admin.getByRole('table', { name: 'Quality per annotator' });
    // The heading comes before the report: wait for the rows, since allInnerTexts reads what is there now.
    const row = async (locator: typeof table, selector: string) => {
      await locator.locator(selector).first().waitFor();
      return (await locator.locator(selector).allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    };
    assert.deepEqual((await row(table, 'tbody tr')).map((r) => r.slice(0, 8)), [['ann', '1', ...cells(ann)]]);
    // A class's row opens under its annotator.
    await table.getByRole('button', { name: '1 class of ann' }).click();
    const boat = ann.classes[0]!;
    assert.deepEqual((await row(table, 'tbody tr.class-row')).map((r) => r.slice(0, 8)), [['boat', String(boat.honeypots), ...cells(boat)]]);
    // The honeypot: its name links to the ground-truth image.
    const honeypotTable = admin.getByRole('table', { name: 'Honeypots of ann' });
    const item = ann.items[0]!;
    const itemRow = (await row(honeypotTable, 'tbody tr'))[0]!;
    assert.deepEqual(itemRow.slice(0, 8), ['truth.png', `#${job.id}`, ...cells(item)]);
    assert.equal(await honeypotTable.getByRole('link', { name: 'truth.png' }).getAttribute('href'), `/images/${truthId}`);
    // The ground-truth list links to the image.
    const list = admin.getByRole('table', { name: 'Ground-truth images' });
    assert.equal(await list.getByRole('link', { name: 'truth.png' }).getAttribute('href'), `/images/${truthId}`);
    assert.deepEqual((await row(list, 'tbody tr'))[0]!.slice(0, 2), ['truth.png', '2']);
    await checkAccessibility(admin, 'the quality page');
    await shootWideAndNarrow(admin, SHOTS, 'quality');

    // Unmarking from the gallery empties the list; the report keeps the honeypot's result.
    await admin.goto(`${base}/projects/${projectId}/images`);
    await admin.getByLabel('Select truth.png').check();
    await bar.getByRole('button', { name: 'Unmark' }).click();
    await admin.locator('.batch-result', { hasText: 'Unmarked 1 image' }).waitFor();
    await admin.goto(`${base}/projects/${projectId}/quality`);
    await admin.getByText('No image is ground truth yet.').waitFor();
    await admin.getByRole('table', { name: 'Honeypots of ann' }).waitFor();
  });

  test('a viewer and an annotator get no Quality link nor ground-truth buttons, and the page says it is for managers', async () => {
    const annotator = await signedInPage(browser, base, keys.ann);
    const viewer = await signedInPage(browser, base, keys.vwr);
    for (const page of [annotator, viewer]) {
      await page.goto(`${base}/projects/${projectId}/images`);
      await page.getByRole('link', { name: 'Jobs' }).waitFor();
      // The role arrives after the page: its note says it is known, so the counts below are of the final page.
      await page.getByText(/in this project: its managers make exports/).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Quality' }).count(), 0);
      await page.getByLabel('Select w0.png').check();
      const bar = page.getByRole('region', { name: 'Selected images' });
      await bar.getByRole('button', { name: 'Clear selection' }).waitFor();
      assert.deepEqual([await bar.getByRole('button', { name: 'Mark as ground truth' }).count(), await bar.getByRole('button', { name: 'Unmark' }).count()], [0, 0]);
    }
    await viewer.goto(`${base}/projects/${projectId}/quality`);
    await viewer.getByText('You are a viewer in this project: only its managers see the quality report and the ground truth.').waitFor();
    assert.equal(await viewer.getByRole('table').count(), 0);
    await shootWideAndNarrow(viewer, SHOTS, 'quality-viewer');
  });
});
