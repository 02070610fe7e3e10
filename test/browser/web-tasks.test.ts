// The tasks page in a real Chromium with many tasks running: one event stream for the whole page (a
// browser holds 6 connections to a host), so a second page and a reload load at once; an import's
// warnings shown in the import form and on its row; the thumbnails that follow an import folded away;
// filters; an export's format and archive on its row and in the gallery's past exports. Photographed
// at 1440×900 and 390×844.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import pino from 'pino';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { type TaskRunner, startTaskRunner } from '../../src/tasks/runner.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { cocoFolderMissingImages } from '../helpers/coco-missing.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('tasks page tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-tasks-shots');
const RUNNING = 8;

describe('the tasks page in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let runner: TaskRunner;
  let teamId: number;
  let harbourId: number;
  /** Event streams open on the server now, and every one opened, by path. */
  let openStreams = 0;
  const opened: string[] = [];
  const countStreams = (request: IncomingMessage, response: ServerResponse) => {
    if (!/^\/v2\/tasks\/(\d+\/)?events/.test(request.url ?? '')) return;
    opened.push(request.url!);
    openStreams += 1;
    response.once('close', () => (openStreams -= 1));
  };

  before(async () => {
    t = await startTestApp(dialects[0]!);
    teamId = (await t.ctx.db.kysely.selectFrom('teams').select('id').where('name', '=', 'alpha').executeTakeFirstOrThrow()).id;
    harbourId = await newProject(t.ctx, { title: 'Harbour', classes: [{ title: 'boat', shape: 'rectangle', color: '#1E88E5' }] });
    const docks = await newDataset(t.ctx, harbourId, 'docks');
    for (let i = 0; i < 3; i++) await newImage(t.ctx, docks, { name: `dock_${i}.png`, bytes: await picture(160, 120, { seed: i }), width: 160, height: 120, objects: [] });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    t.app.server.on('request', countStreams);
    runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, t.key);
  });

  after(async () => {
    t?.app.server.off('request', countStreams);
    await browser?.close();
    await runner?.stop();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  const shoot = async (name: string, narrow = false, show?: string) => {
    if (narrow) await page.setViewportSize({ width: 390, height: 844 });
    if (show) await page.locator(show).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
    if (narrow) await page.setViewportSize({ width: 1440, height: 900 });
  };

  test('a COCO folder with 4 of its 6 images missing: the import form says so', async () => {
    const folder = await cocoFolderMissingImages('harbour-coco');
    await page.getByLabel('Choose a folder…').setInputFiles(folder);
    await page.getByLabel('What will be imported').filter({ hasText: 'COCO: 2 images' }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Import finished. It gave 1 warning:' }).waitFor({ timeout: 60_000 });
    const warnings = page.locator('.import .task-warnings');
    await warnings.filter({ hasText: 'instances.json 4 of its 6 images are not among the uploaded files and are not imported (c.png, d.png, e.png, f.png)' }).waitFor();
    await checkAccessibility(page, 'the import form with warnings');
    await warnings.scrollIntoViewIfNeeded();
    await shoot('import-warnings');
  });

  test(`with ${RUNNING} tasks running the page holds one event stream, and another page and a reload load at once`, async () => {
    const ids: number[] = [];
    const now = new Date().toISOString();
    for (let i = 0; i < RUNNING; i++) {
      const id = await tasks.createTask(t.ctx.db.kysely, { teamId, userId: null, type: 'import', size: 0, meta: { format: 'coco', progress: { done: i, total: 10 } }, input: {}, projectId: harbourId });
      // Held by a worker that never ends them: the runner here leaves them be.
      await t.ctx.db.kysely.updateTable('tasks').set({ status: 'started', started_at: now, lease_owner: 'elsewhere', lease_expires_at: '2999-01-01T00:00:00.000Z', attempts: 1 }).where('id', '=', id).execute();
      ids.push(id);
    }
    opened.length = 0;
    await page.goto(`${base}/tasks`);
    for (const id of ids) await page.getByRole('listitem', { name: `Task ${id}, import` }).filter({ hasText: 'started' }).waitFor();
    // The page left behind closes its stream on the server a moment later: one stream, and for a while.
    await waitUntil(() => openStreams === 1, `one stream for the page: ${opened.join(' ')}`);
    await page.waitForTimeout(500);
    assert.equal(openStreams, 1, `one stream for the page: ${opened.join(' ')}`);
    assert.deepEqual(opened, ['/v2/tasks/events']);

    // Progress comes through that one stream.
    await t.ctx.db.kysely.updateTable('tasks').set({ meta: JSON.stringify({ format: 'coco', progress: { done: 9, total: 10 } }) }).where('id', '=', ids[0]!).execute();
    await page.getByRole('progressbar', { name: `Task ${ids[0]}, import: 9 of 10` }).waitFor();

    // A second tab of the same browser shares its 6 connections: it loads as fast as ever.
    const second = await context.newPage();
    const started = Date.now();
    await second.goto(`${base}/tasks`);
    await second.getByRole('listitem', { name: `Task ${ids[0]}, import` }).waitFor({ timeout: 5000 });
    const secondMs = Date.now() - started;
    assert.ok(secondMs < 5000, `second page in ${secondMs} ms`);
    const reloaded = Date.now();
    await page.reload();
    await page.getByRole('listitem', { name: `Task ${ids[0]}, import` }).waitFor({ timeout: 5000 });
    assert.ok(Date.now() - reloaded < 5000);
    await waitUntil(() => openStreams === 2, 'one stream for each page');
    await second.close();
    await waitUntil(() => openStreams === 1, 'one stream once the second page is closed');

    await checkAccessibility(page, 'the tasks page with tasks running');
    await shoot('tasks-running');
    await shoot('tasks-running-narrow', true);
    for (const id of ids) await tasks.finishTask(t.ctx.db.kysely, { id, owner: 'elsewhere', status: 'stopped', meta: { format: 'coco' } });
    for (const id of ids) await page.getByRole('listitem', { name: `Task ${id}, import` }).filter({ hasText: 'stopped' }).waitFor();
  });

  test('thumbnails are folded away; filters by type, project and status; the import row shows its warnings', async () => {
    await page.goto(`${base}/tasks`);
    const importRow = page.getByRole('listitem', { name: /, import$/ }).filter({ hasText: '1 warning' });
    await importRow.waitFor();
    assert.equal(await page.getByRole('listitem', { name: /, thumbnails$/ }).count(), 0, 'housekeeping hidden by default');
    await importRow.getByText('1 warning').click();
    await importRow.getByText('4 of its 6 images are not among the uploaded files').waitFor();
    assert.ok((await importRow.textContent())!.includes('harbour-coco'), 'the row names its project');

    await page.getByLabel('Show housekeeping').check();
    await page.waitForURL(/housekeeping=1/);
    await page.getByRole('listitem', { name: /, thumbnails$/ }).first().waitFor();
    await page.getByLabel('Show housekeeping').uncheck();
    await page.getByLabel('Type').selectOption('thumbnails');
    await page.waitForURL(/type=thumbnails/);
    await page.getByRole('listitem', { name: /, thumbnails$/ }).first().waitFor();
    assert.equal(await page.getByRole('listitem', { name: /, import$/ }).count(), 0);
    // A finished task of Harbour's beside its stopped ones: the status filter has one to leave out.
    const finished = await tasks.createTask(t.ctx.db.kysely, { teamId, userId: null, type: 'import', size: 0, meta: { format: 'coco' }, input: {}, projectId: harbourId });
    await t.ctx.db.kysely.updateTable('tasks').set({ status: 'started', started_at: new Date().toISOString(), lease_owner: 'elsewhere', lease_expires_at: '2999-01-01T00:00:00.000Z', attempts: 1 }).where('id', '=', finished).execute();
    await tasks.finishTask(t.ctx.db.kysely, { id: finished, owner: 'elsewhere', status: 'finished', meta: { format: 'coco' } });
    await page.getByLabel('Type').selectOption('');
    await page.getByLabel('Project').selectOption({ label: 'Harbour' });
    await page.getByRole('status').filter({ hasText: `${RUNNING + 1} tasks` }).waitFor();
    await page.getByLabel('Status').selectOption('stopped');
    await page.getByRole('status').filter({ hasText: `${RUNNING} tasks` }).waitFor();
    assert.equal(await page.getByRole('listitem', { name: `Task ${finished}, import` }).count(), 0);
    assert.equal(await page.getByRole('listitem', { name: /, import$/ }).filter({ hasText: 'harbour-coco' }).count(), 0);
    await checkAccessibility(page, 'the tasks page filtered');
  });

  test('an export names its format on its row, offers its archive there, and the gallery lists it among past exports', async () => {
    await page.goto(`${base}/projects/${harbourId}/images`);
    const form = page.getByRole('form', { name: 'Export Harbour' });
    await form.getByLabel('Format').selectOption('yolo');
    await form.getByRole('button', { name: 'Export Harbour' }).click();
    await form.getByRole('link', { name: 'Download the archive' }).waitFor({ timeout: 60_000 });
    const past = page.locator('.past-exports');
    await past.getByRole('link', { name: /^Download export \d+$/ }).waitFor();
    assert.match((await past.locator('li').first().textContent()) ?? '', /^YOLO · /);
    // The page closes the stream as it shows the link; the server sees it closed a moment later.
    await waitUntil(() => openStreams === 0, 'the gallery holds no stream once its export has ended');
    await checkAccessibility(page, 'the gallery with past exports');
    await shoot('gallery-past-exports');
    await shoot('gallery-past-exports-narrow', true, '.past-exports');

    await past.getByRole('link', { name: 'All exports of this project' }).click();
    await page.waitForURL(/\/tasks\?type=export&project=\d+/);
    const row = page.getByRole('listitem', { name: /, export$/ }).first();
    await row.filter({ hasText: 'YOLO' }).filter({ hasText: 'Harbour' }).waitFor();
    const download = row.getByRole('link', { name: /^Download export \d+$/ });
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    assert.equal(file.suggestedFilename(), 'Harbour-yolo.zip');
    await shoot('tasks-exports');
    await shoot('tasks-exports-narrow', true);
  });
});

async function waitUntil(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
