// A team's whole annotation round in a real Chromium, each person in their own browser and nothing done
// for them in code: the admin invites two annotators and a reviewer on the Users page; each opens the
// link, sets a password and signs in with it; the admin splits a dataset into two jobs on the jobs
// page; the annotators open their jobs from My work, draw in the editor with the mouse, save and
// submit; the reviewer rejects one image with an issue pinned by a click; its annotator sees the issue,
// draws what was missing, resolves it and submits again; the reviewer accepts; the admin reads the
// figures. What the pages show is checked against the API. Every page is checked with axe and shot at
// 1440×900 and 390×844 (WEB_SCREENSHOTS names a folder to keep them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { checkAccessibility, launchChromium, shootWideAndNarrow, signedInPage, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web team flow tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-team-flow-shots');

// Larger than the stage at either size, so the view is fitted (scaled down) before anything is drawn.
const WIDTH = 1280;
const HEIGHT = 960;

interface StoredObject {
  classTitle: string;
  points: { exterior: number[][] };
}
interface JobImageState {
  imageId: number;
  state: string;
}
interface JobRead {
  id: number;
  title: string;
  stage: string;
  progress: { images: number; accepted: number; acceptedFirstReview: number; objectsMade: number };
}

/** The view's transform: image pixel (x, y) shows at screen (e + a·x, f + a·y). */
async function transformOf(page: Page): Promise<{ a: number; e: number; f: number }> {
  return (await page.evaluate(`(() => { const m = document.querySelector('.stage svg > g').getScreenCTM(); return { a: m.a, e: m.e, f: m.f }; })()`)) as { a: number; e: number; f: number };
}

/** Where the mouse goes for image pixel (x, y), in whole screen pixels as a user's mouse is. */
const screenAt = (m: { a: number; e: number; f: number }, x: number, y: number): [number, number] => [Math.round(m.e + m.a * x), Math.round(m.f + m.a * y)];

/** Each point of `actual` within `tolerance` image pixels of `expected`'s, in order. */
const near = (actual: number[][], expected: number[][], tolerance: number, label: string) => {
  assert.equal(actual.length, expected.length, `${label}: ${JSON.stringify(actual)}`);
  actual.forEach((p, i) => p.forEach((v, j) => assert.ok(Math.abs(v - expected[i]![j]!) <= tolerance, `${label}: ${JSON.stringify(actual)} against ${JSON.stringify(expected)}`)));
};

async function look(page: Page, name: string): Promise<void> {
  await checkAccessibility(page, name);
  await shootWideAndNarrow(page, SHOTS, name);
}

describe('a team annotates, reviews and reads the figures in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let projectId: number;
  const images: number[] = [];

  before(async () => {
    // A cheaper password hash than production's: the test sets three passwords and signs in three times.
    t = await startTestApp(dialects[0]!, { accounts: { ...loadConfig({}).accounts, scryptCost: { logN: 14, r: 8, p: 1 } } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    projectId = await newProject(t.ctx, {
      title: 'Harbour',
      classes: [
        { title: 'boat', shape: 'polygon', color: '#1F77B4' },
        { title: 'buoy', shape: 'rectangle', color: '#D62728' },
      ],
    });
    const dataset = await newDataset(t.ctx, projectId, 'day');
    for (let i = 0; i < 4; i++) images.push((await newImage(t.ctx, dataset, { name: `h${i}.png`, bytes: await picture(WIDTH, HEIGHT, { seed: i }), width: WIDTH, height: HEIGHT })).id);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  const objectsOf = async (imageId: number) => json<{ objects: StoredObject[] }>(await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` })).objects;
  const jobRead = async (jobId: number) => json<JobRead>(await t.request({ method: 'GET', url: `/v2/jobs/${jobId}` }));
  const statesOf = async (jobId: number) =>
    json<{ items: JobImageState[] }>(await t.request({ method: 'GET', url: `/v2/jobs/${jobId}/images` })).items.map((i) => `${images.indexOf(i.imageId)}:${i.state}`);

  /** The image view of `imageId` opened within a job, loaded and fitted, its job bar read. */
  async function editorReady(page: Page, imageId: number): Promise<void> {
    await page.waitForURL(new RegExp(`/images/${imageId}\\?job=\\d+$`));
    await page.locator(`.stage svg > g > image[href="/v2/images/${imageId}/file"]`).waitFor();
    await page.getByLabel('Zoom').filter({ hasNotText: /^100%$/ }).waitFor();
    await page.locator('.job-bar .job-state').waitFor();
  }

  /** A polygon of class boat, clicked point by point and closed on its first point. */
  async function drawBoat(page: Page, points: [number, number][]): Promise<void> {
    const before = await page.locator('.object-list li', { hasText: 'boat' }).count();
    await page.getByRole('button', { name: 'Polygon', exact: true }).click();
    assert.equal(await page.locator('.editor-toolbar .class-picker select').first().inputValue(), 'boat');
    const m = await transformOf(page);
    for (const [x, y] of points) await page.mouse.click(...screenAt(m, x, y));
    await page.mouse.click(...screenAt(m, ...points[0]!));
    await page.locator('.object-list li', { hasText: 'boat' }).nth(before).waitFor();
  }

  /** A rectangle of class buoy, dragged from one corner to the other. */
  async function drawBuoy(page: Page, from: [number, number], to: [number, number]): Promise<void> {
    await page.getByRole('button', { name: 'Rectangle', exact: true }).click();
    assert.equal(await page.locator('.editor-toolbar .class-picker select').first().inputValue(), 'buoy');
    const m = await transformOf(page);
    await page.mouse.move(...screenAt(m, ...from));
    await page.mouse.down();
    await page.mouse.move(...screenAt(m, ...to), { steps: 6 });
    await page.mouse.up();
    await page.locator('.object-list li', { hasText: 'buoy' }).waitFor();
  }

  async function save(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  }

  /** The next image of the job bar's queue, opened. */
  async function nextImage(page: Page, imageId: number): Promise<void> {
    await page.getByRole('button', { name: 'Next image' }).click();
    await editorReady(page, imageId);
  }

  test('invite, sign in, split, draw, submit, reject with an issue, fix, accept, and the figures', { timeout: 300_000 }, async () => {
    // The admin invites three members on the team's Users page; each link is shown once.
    const admin = await signedInPage(browser, base, t.adminKey);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByRole('heading', { name: 'Users of team alpha' }).waitFor();
    const links: Record<string, string> = {};
    for (const login of ['ann1', 'ann2', 'rev']) {
      await admin.getByLabel('Login').fill(login);
      await admin.getByLabel('Role', { exact: true }).selectOption('member');
      await admin.getByRole('button', { name: 'Invite' }).click();
      await admin.locator('.link-shown', { hasText: `for ${login},` }).waitFor();
      links[login] = await admin.getByLabel('Link').inputValue();
      assert.match(links[login], new RegExp(`^${base}/set-password#[\\w-]{43}$`));
      await admin.locator(`tr[data-login="${login}"]`).getByText('invited').waitFor();
    }
    await look(admin, 'users-invited');

    // Each opens their link in their own browser, sets a password, signs out and signs in with it.
    const people: Record<string, Page> = {};
    for (const login of ['ann1', 'ann2', 'rev']) {
      const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })).newPage();
      page.setDefaultTimeout(15_000);
      const password = `${login} harbour password`;
      await page.goto(links[login]!);
      await page.getByRole('heading', { name: 'Welcome to Annostore' }).waitFor();
      if (login === 'ann1') await look(page, 'set-password');
      await page.getByLabel('New password').fill(password);
      await page.getByLabel('Repeat it').fill(password);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Login').fill(login);
      await page.getByLabel('Password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await page.getByRole('link', { name: new RegExp(`${login} · alpha`) }).waitFor();
      if (login === 'ann1') await look(page, 'projects-of-a-new-member');
      people[login] = page;
    }
    const { ann1, ann2, rev } = people as { ann1: Page; ann2: Page; rev: Page };
    await admin.reload();
    for (const login of ['ann1', 'ann2', 'rev']) await admin.locator(`tr[data-login="${login}"]`).getByText('active').waitFor();

    // The admin splits the dataset into two jobs of two images, ann1 and ann2 annotating, rev reviewing.
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
    assert.deepEqual(
      rows.map((r) => r.split('\t').slice(0, 4).join(' ')),
      ['day 1/2 ann1 rev annotate', 'day 2/2 ann2 rev annotate'],
    );
    await look(admin, 'jobs-made');

    // ann1 opens the job from My work and draws a boat on each of its two images, then submits the job.
    await ann1.getByRole('link', { name: 'My work' }).click();
    await ann1.getByRole('heading', { name: 'day 1/2' }).waitFor();
    // Each job names its project, linked to its gallery.
    const projectLink = ann1.getByRole('listitem').filter({ hasText: 'day 1/2' }).getByRole('link', { name: 'Harbour' });
    assert.equal(await projectLink.getAttribute('href'), `/projects/${projectId}/images`);
    await look(ann1, 'my-work-annotator');
    await ann1.getByRole('button', { name: 'Annotate' }).click();
    await editorReady(ann1, images[0]!);
    const job1 = Number(new URL(ann1.url()).searchParams.get('job'));
    await ann1.locator('.job-state', { hasText: 'in progress' }).waitFor();
    await drawBoat(ann1, [[200, 200], [600, 220], [560, 480], [240, 440]]);
    await save(ann1);
    await look(ann1, 'editor-boat-drawn');
    await nextImage(ann1, images[1]!);
    await drawBoat(ann1, [[700, 300], [1000, 300], [850, 600]]);
    await save(ann1);
    await ann1.getByRole('button', { name: 'Submit job' }).click();
    await ann1.locator('.job-stage', { hasText: 'review' }).waitFor();

    // ann2 draws a buoy on each of its images and submits its job.
    await ann2.getByRole('link', { name: 'My work' }).click();
    await ann2.getByRole('heading', { name: 'day 2/2' }).waitFor();
    await ann2.getByRole('button', { name: 'Annotate' }).click();
    await editorReady(ann2, images[2]!);
    const job2 = Number(new URL(ann2.url()).searchParams.get('job'));
    await drawBuoy(ann2, [300, 300], [500, 450]);
    await save(ann2);
    await look(ann2, 'editor-buoy-drawn');
    await nextImage(ann2, images[3]!);
    await drawBuoy(ann2, [800, 500], [950, 700]);
    await save(ann2);
    await ann2.getByRole('button', { name: 'Submit job' }).click();
    await ann2.locator('.job-stage', { hasText: 'review' }).waitFor();

    // What they drew is stored, in the classes picked, where the mouse put it.
    const boat0 = await objectsOf(images[0]!);
    assert.deepEqual(boat0.map((o) => o.classTitle), ['boat']);
    near(boat0[0]!.points.exterior, [[200, 200], [600, 220], [560, 480], [240, 440]], 3, 'ann1’s first boat');
    assert.deepEqual((await objectsOf(images[1]!)).map((o) => o.classTitle), ['boat']);
    const buoy2 = await objectsOf(images[2]!);
    assert.deepEqual(buoy2.map((o) => o.classTitle), ['buoy']);
    near(buoy2[0]!.points.exterior, [[300, 300], [500, 450]], 3, 'ann2’s first buoy');
    assert.deepEqual((await objectsOf(images[3]!)).map((o) => o.classTitle), ['buoy']);
    assert.deepEqual(await statesOf(job1), ['0:submitted', '1:submitted']);
    assert.equal((await jobRead(job1)).stage, 'review');
    assert.equal((await jobRead(job2)).stage, 'review');

    // rev reviews ann1's job from My work: the first image lacks a boat, pinned where it is; the second is fine.
    await rev.getByRole('link', { name: 'My work' }).click();
    await rev.getByRole('heading', { name: 'day 1/2' }).waitFor();
    await look(rev, 'my-work-reviewer');
    await rev.getByRole('listitem').filter({ hasText: 'day 1/2' }).getByRole('button', { name: 'Review' }).click();
    await editorReady(rev, images[0]!);
    await rev.getByRole('button', { name: 'Reject…' }).click();
    await rev.getByText('Click on the image where something is wrong').waitFor();
    await rev.mouse.click(...screenAt(await transformOf(rev), 900, 700));
    await rev.getByLabel(/Issue 1 at/).fill('a second boat here is not outlined');
    await rev.locator('.issue-mark').first().waitFor();
    await look(rev, 'review-pinning');
    await rev.getByRole('button', { name: 'Send rejection' }).click();
    await rev.locator('.job-state', { hasText: 'rejected' }).waitFor();
    await nextImage(rev, images[1]!);
    await rev.getByRole('button', { name: 'Accept' }).click();
    await rev.locator('.job-state', { hasText: 'accepted' }).waitFor();
    await rev.locator('.job-stage', { hasText: 'annotate' }).waitFor();
    const issue = json<{ items: { x: number; y: number; status: string }[] }>(await t.request({ method: 'GET', url: `/v2/jobs/${job1}/images/${images[0]}/issues` })).items;
    assert.equal(issue.length, 1);
    assert.ok(Math.abs(issue[0]!.x - 900) <= 3 && Math.abs(issue[0]!.y - 700) <= 3, `the pin is where the reviewer clicked: ${issue[0]!.x}, ${issue[0]!.y}`);
    assert.deepEqual(await statesOf(job1), ['0:rejected', '1:accepted']);
    assert.equal((await jobRead(job1)).stage, 'annotate');

    // rev accepts both images of ann2's job: it is done.
    await rev.getByRole('link', { name: 'My work' }).click();
    await rev.getByRole('listitem').filter({ hasText: 'day 2/2' }).getByRole('button', { name: 'Review' }).click();
    await editorReady(rev, images[2]!);
    await rev.getByRole('button', { name: 'Accept' }).click();
    await rev.locator('.job-state', { hasText: 'accepted' }).waitFor();
    await nextImage(rev, images[3]!);
    await rev.getByRole('button', { name: 'Accept' }).click();
    await rev.locator('.job-stage', { hasText: 'done' }).waitFor();

    // ann1 finds the job back in annotate on My work; Annotate opens the rejected image with its issue.
    await ann1.getByRole('link', { name: 'My work' }).click();
    await ann1.getByRole('listitem').filter({ hasText: '1 rejected' }).waitFor();
    await look(ann1, 'my-work-rejected');
    await ann1.getByRole('button', { name: 'Annotate' }).click();
    await editorReady(ann1, images[0]!);
    await ann1.locator('.job-state', { hasText: 'rejected' }).waitFor();
    await ann1.locator('.job-issues .thread li', { hasText: 'rev: a second boat here is not outlined' }).waitFor();
    await ann1.locator('.issue-mark.open').waitFor();
    await look(ann1, 'editor-issue-open');
    // The missing boat, drawn around the pin, saved; the issue answered and resolved; the job submitted.
    await drawBoat(ann1, [[820, 640], [980, 640], [980, 760], [820, 760]]);
    await save(ann1);
    await ann1.getByLabel('Reply to issue 1').fill('outlined it');
    await ann1.getByRole('button', { name: 'Reply' }).click();
    await ann1.locator('.job-issues .thread li', { hasText: 'you: outlined it' }).waitFor();
    await ann1.getByRole('button', { name: 'Resolve' }).click();
    await ann1.locator('.issue-mark.resolved').waitFor();
    await look(ann1, 'editor-issue-resolved');
    await ann1.getByRole('button', { name: 'Submit job' }).click();
    await ann1.locator('.job-stage', { hasText: 'review' }).waitFor();
    const fixed = await objectsOf(images[0]!);
    assert.deepEqual(fixed.map((o) => o.classTitle), ['boat', 'boat']);
    near(fixed[1]!.points.exterior, [[820, 640], [980, 640], [980, 760], [820, 760]], 3, 'the boat drawn for the issue');

    // rev accepts the fixed image from My work: the job is done.
    await rev.getByRole('link', { name: 'My work' }).click();
    await rev.getByRole('listitem').filter({ hasText: 'day 1/2' }).getByRole('button', { name: 'Review' }).click();
    await editorReady(rev, images[0]!);
    await rev.locator('.issue-mark.resolved').waitFor();
    // The thread names who said what.
    assert.deepEqual(await rev.locator('.job-issues .thread li').allInnerTexts(), ['you: a second boat here is not outlined', 'ann1: outlined it']);
    await rev.getByRole('button', { name: 'Accept' }).click();
    await rev.locator('.job-stage', { hasText: 'done' }).waitFor();
    await look(rev, 'review-done');
    assert.deepEqual(await statesOf(job1), ['0:accepted', '1:accepted']);

    // The admin's jobs page: both jobs done; per assignee, images done, accepted on first review, objects made.
    await admin.reload();
    await admin.locator('.figures-table').waitFor();
    const jobRows = (await admin.locator('.jobs-table tbody tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    // Job, assignee, reviewer, stage, accepted; then submitted, rejected, first review (time skipped), objects.
    assert.deepEqual(jobRows.map((r) => [...r.slice(0, 8), r[9]]), [
      ['day 1/2', 'ann1', 'rev', 'done', '2/2', '0', '0', '1', '3'],
      ['day 2/2', 'ann2', 'rev', 'done', '2/2', '0', '0', '2', '2'],
    ]);
    const figures = (await admin.locator('.figures-table tbody tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    // Assignee, jobs, images, done, accepted on first review, (time skipped) objects made.
    assert.deepEqual(figures.map((r) => [...r.slice(0, 5), r[6]]), [
      ['ann1', '1', '2', '2', '1', '3'],
      ['ann2', '1', '2', '2', '2', '2'],
    ]);
    await look(admin, 'jobs-figures');
    const [read1, read2] = [await jobRead(job1), await jobRead(job2)];
    assert.deepEqual([read1.stage, read1.progress.accepted, read1.progress.acceptedFirstReview, read1.progress.objectsMade], ['done', 2, 1, 3]);
    assert.deepEqual([read2.stage, read2.progress.accepted, read2.progress.acceptedFirstReview, read2.progress.objectsMade], ['done', 2, 2, 2]);
  });
});
