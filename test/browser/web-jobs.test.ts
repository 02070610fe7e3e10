// Jobs and review in a real Chromium (docs/jobs.md): an admin splits a dataset into two jobs for two
// annotators with a reviewer on the jobs page; the annotators save (through the API) and submit from
// My work and the job bar; the reviewer rejects an image with an issue pinned by a click on it; the
// annotator replies, resolves and submits it again; the reviewer accepts; the admin sees the figures.
// Each page is photographed at 1440×900 and 390×844 (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createKey } from '../../src/services/keys.service.ts';
import { launchChromium, shootWideAndNarrow, signedInPage, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web jobs tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-jobs-shots');

describe('jobs and review in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let projectId: number;
  const images: number[] = [];
  const keys = { ann1: '', ann2: '', rev: '' };

  before(async () => {
    t = await startTestApp(dialects[0]!);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    for (const login of ['ann1', 'ann2', 'rev'] as const) keys[login] = await createKey(t.ctx.db.kysely, { team: 'alpha', user: login });
    projectId = await newProject(t.ctx, { title: 'Harbour', classes: [{ title: 'boat', shape: 'polygon', color: '#1F77B4' }] });
    const dataset = await newDataset(t.ctx, projectId, 'day');
    for (let i = 0; i < 4; i++) images.push((await newImage(t.ctx, dataset, { name: `h${i}.png`, bytes: await picture(320, 240, { seed: i }), width: 320, height: 240 })).id);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  const save = async (key: string, imageId: number, x: number) => {
    const res = await t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, key, payload: { objects: [polygon('boat', [[x, 10], [x + 60, 10], [x + 60, 60], [x, 60]])] } });
    assert.equal(res.statusCode, 200, res.body);
  };

  test('a project with no dataset to split says so, and its split cannot be sent', async () => {
    const empty = await newProject(t.ctx, { title: 'Empty harbour', classes: [{ title: 'boat', shape: 'polygon', color: '#1F77B4' }] });
    await newDataset(t.ctx, empty, 'reference', { managersOnly: true });
    const admin = await signedInPage(browser, base, t.adminKey);
    await admin.goto(`${base}/projects/${empty}/jobs`);
    const split = admin.getByRole('form', { name: 'Split a dataset' });
    await split.getByText('No dataset to split: the project has none yet, or only managers-only ones, whose images go into no job.').waitFor();
    assert.equal(await split.getByRole('combobox', { name: 'Dataset' }).locator('option').count(), 0);
    assert.equal(await split.getByRole('button', { name: 'Make jobs' }).isDisabled(), true);
    await shootWideAndNarrow(admin, SHOTS, 'jobs-nothing-to-split');
    await admin.close();
  });

  test('split, annotate, reject with an issue, fix, accept, and the manager’s figures', async () => {
    // The admin makes two jobs of two images on the jobs page, linked from the gallery.
    const admin = await signedInPage(browser, base, t.adminKey);
    await admin.goto(`${base}/projects/${projectId}/images`);
    await admin.getByRole('link', { name: 'Jobs' }).click();
    await admin.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    await admin.getByLabel('Images per job').fill('2');
    await admin.getByRole('checkbox', { name: 'ann1' }).check();
    await admin.getByRole('checkbox', { name: 'ann2' }).check();
    await admin.getByLabel('Reviewer').selectOption({ label: 'rev' });
    await admin.getByRole('button', { name: 'Make jobs' }).click();
    await admin.getByText('2 jobs made.').waitFor();
    const rows = await admin.locator('.jobs-table tbody tr').allInnerTexts();
    assert.deepEqual(rows.map((r) => r.split('\t').slice(0, 4).join(' ')), ['day 1/2 ann1 rev annotate', 'day 2/2 ann2 rev annotate']);
    await shootWideAndNarrow(admin, SHOTS, 'jobs-made');

    // Both annotators save their images; ann1 works from My work and the job bar.
    const ann1 = await signedInPage(browser, base, keys.ann1);
    await ann1.getByRole('link', { name: 'My work' }).click();
    await ann1.getByRole('heading', { name: 'day 1/2' }).waitFor();
    await shootWideAndNarrow(ann1, SHOTS, 'my-work');
    await ann1.getByRole('button', { name: 'Annotate' }).click();
    await ann1.waitForURL(new RegExp(`/images/${images[0]}\\?job=\\d+$`));
    await ann1.locator('.job-state', { hasText: 'in progress' }).waitFor();
    const jobId = Number(new URL(ann1.url()).searchParams.get('job'));
    for (const [i, imageId] of images.entries()) await save(i < 2 ? keys.ann1 : keys.ann2, imageId, 10 + i * 20);
    await ann1.getByRole('button', { name: 'Submit job' }).click();
    await ann1.locator('.job-stage', { hasText: 'review' }).waitFor();
    const other = json<{ items: { id: number }[] }>(await t.request({ method: 'GET', url: '/v2/jobs/mine', key: keys.ann2 })).items[0]!.id;
    assert.equal((await t.request({ method: 'POST', url: `/v2/jobs/${other}/submit`, key: keys.ann2 })).statusCode, 200);

    // The reviewer rejects the first image with an issue pinned by a click on it, and accepts the second.
    const rev = await signedInPage(browser, base, keys.rev);
    await rev.goto(`${base}/my-work`);
    await rev.getByRole('listitem').filter({ hasText: 'day 1/2' }).getByRole('button', { name: 'Review' }).click();
    await rev.waitForURL(new RegExp(`/images/${images[0]}\\?job=${jobId}$`));
    await rev.getByRole('button', { name: 'Reject…' }).click();
    const box = (await rev.locator('.stage svg').boundingBox())!;
    await rev.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await rev.getByLabel(/Issue 1 at/).fill('the boat’s stern is cut off');
    await rev.locator('.issue-mark').first().waitFor();
    await shootWideAndNarrow(rev, SHOTS, 'review-pinning');
    await rev.getByRole('button', { name: 'Send rejection' }).click();
    await rev.locator('.job-state', { hasText: 'rejected' }).waitFor();
    await rev.getByRole('button', { name: 'Next image' }).click();
    await rev.waitForURL(new RegExp(`/images/${images[1]}\\?job=${jobId}$`));
    await rev.getByRole('button', { name: 'Accept' }).click();
    await rev.locator('.job-state', { hasText: 'accepted' }).waitFor();

    // The annotator sees the issue drawn and listed, replies, fixes the image, resolves and submits it.
    await ann1.goto(`${base}/images/${images[0]}?job=${jobId}`);
    await ann1.getByText('the boat’s stern is cut off').waitFor();
    await ann1.locator('.issue-mark.open').waitFor();
    const issue = json<{ items: { x: number; y: number }[] }>(await t.request({ method: 'GET', url: `/v2/jobs/${jobId}/images/${images[0]}/issues` })).items[0]!;
    // Clicked at the stage's centre: near the image's (the rejection form took some of the stage's height).
    assert.ok(Math.abs(issue.x - 160) <= 30 && Math.abs(issue.y - 120) <= 30, `the pin is near the image's centre: ${issue.x}, ${issue.y}`);
    await ann1.getByLabel('Reply to issue 1').fill('extended it');
    await ann1.getByRole('button', { name: 'Reply' }).click();
    await ann1.getByText('extended it').waitFor();
    await save(keys.ann1, images[0]!, 5);
    await ann1.getByRole('button', { name: 'Resolve' }).click();
    await ann1.locator('.issue-mark.resolved').waitFor();
    await shootWideAndNarrow(ann1, SHOTS, 'issue-resolved');
    await ann1.getByRole('button', { name: 'Submit image' }).click();
    await ann1.locator('.job-state', { hasText: 'submitted' }).waitFor();

    // The reviewer accepts the fixed image: the job is done.
    await rev.goto(`${base}/images/${images[0]}?job=${jobId}`);
    await rev.getByRole('button', { name: 'Accept' }).click();
    await rev.locator('.job-stage', { hasText: 'done' }).waitFor();
    await shootWideAndNarrow(rev, SHOTS, 'review-done');

    // The manager sees the figures.
    await admin.reload();
    await admin.locator('.figures-table').waitFor();
    const jobsRows = await admin.locator('.jobs-table tbody tr').allInnerTexts();
    assert.match(jobsRows[0]!, /day 1\/2\s+ann1\s+rev\s+done\s+2\/2/);
    const figures = await admin.locator('.figures-table tbody tr').allInnerTexts();
    assert.deepEqual(figures.map((r) => r.split('\t').slice(0, 5).join(' ')), ['ann1 1 2 2 1', 'ann2 1 2 0 0']);
    await shootWideAndNarrow(admin, SHOTS, 'jobs-figures');
  });
});
