// Project roles in a real Chromium (docs/web.md#project-roles): a viewer, an annotator and a manager of
// one project sign in, and each is shown exactly the tools of their role on the image view, the
// gallery, the settings, tags, versions, jobs and tasks pages; a viewer's keys find no edit control;
// a manager gives roles in the members panel, checked through the API. The image view as viewer and
// as annotator and the members panel are photographed at 1440×900 and 390×844 (WEB_SCREENSHOTS names
// a folder to keep them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createKey } from '../../src/services/keys.service.ts';
import * as members from '../../src/repositories/project-members.repository.ts';
import { checkAccessibility, launchChromium, shootWideAndNarrow, signedInPage, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, polygon, userId } from '../helpers/factories.ts';
import { picture } from '../helpers/pictures.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web project roles tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-project-roles-shots');

/** What the editor offers: none of it is a viewer's. */
const EDIT_CONTROLS = ['Select', 'Rectangle', 'Polygon', 'Segment', 'Undo', 'Redo', 'Save'];

interface MembersAnswer {
  memberDefaultRole: string | null;
  items: { login: string; role: string }[];
}

describe('project roles in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let projectId: number;
  let imageId: number;
  const keys = { vwr: '', ann: '', mgr: '' };

  const revisions = async (): Promise<number> => {
    const res = await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation/revisions`, key: t.key });
    return json<{ items: unknown[] }>(res).items.length;
  };
  const listMembers = async (): Promise<MembersAnswer> => json<MembersAnswer>(await t.request({ method: 'GET', url: `/v2/projects/${projectId}/members`, key: t.key }));

  /** The names of the buttons the page shows. */
  const buttons = async (page: Page, within = 'body'): Promise<string[]> => (await page.locator(`${within} button:visible`).allInnerTexts()).map((b) => b.trim());

  before(async () => {
    t = await startTestApp(dialects[0]!);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    for (const login of ['vwr', 'ann', 'mgr'] as const) keys[login] = await createKey(t.ctx.db.kysely, { team: 'alpha', user: login });
    // A user of the team with no role yet, for the manager to add.
    await createKey(t.ctx.db.kysely, { team: 'alpha', user: 'newbie' });
    projectId = await newProject(t.ctx, { title: 'Harbour', classes: [{ title: 'boat', shape: 'polygon', color: '#1F77B4' }] });
    // Only those given a role see the project.
    await members.setDefaultRole(t.ctx.db.kysely, projectId, null);
    for (const [login, role] of [['vwr', 'viewer'], ['ann', 'annotator'], ['mgr', 'manager']] as const) await members.putMember(t.ctx.db.kysely, projectId, await userId(t.ctx, 'alpha', login), role);
    const dataset = await newDataset(t.ctx, projectId, 'day');
    imageId = (await newImage(t.ctx, dataset, { name: 'h0.png', bytes: await picture(320, 240, { seed: 1 }), width: 320, height: 240 })).id;
    await newImage(t.ctx, dataset, { name: 'h1.png', bytes: await picture(320, 240, { seed: 2 }), width: 320, height: 240 });
    const saved = await t.request({ method: 'PUT', url: `/v2/images/${imageId}/annotation`, key: t.key, payload: { objects: [polygon('boat', [[20, 20], [120, 20], [120, 90], [20, 90]])] } });
    assert.equal(saved.statusCode, 200, saved.body);
    const tag = await t.request({ method: 'POST', url: `/v2/projects/${projectId}/tags`, key: t.key, payload: { title: 'sunny', scope: 'images' } });
    assert.equal(tag.statusCode, 201, tag.body);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('a viewer sees the image read-only, no edit tool, and no way to change the project', async () => {
    const page = await signedInPage(browser, base, keys.vwr);
    // The projects page links to the settings as a place to read, once it has the caller's roles (the
    // link reads so before they are known, too). The sign-in's page is left first, so the answer
    // waited for is this page's; then two frames for the page to draw it.
    await page.goto('about:blank');
    const roles = page.waitForResponse((r) => new URL(r.url()).pathname === '/v2/project-roles');
    await page.goto(`${base}/`);
    await (await roles).finished();
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await page.getByRole('link', { name: 'Datasets and classes' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Settings: datasets and classes' }).count(), 0);
    await page.goto(`${base}/images/${imageId}?project=${projectId}`);
    await page.getByText('You are a viewer in this project: the annotation is read-only here.').waitFor();
    await page.getByRole('list', { name: 'Objects' }).or(page.getByRole('heading', { name: 'Objects (1)' })).first().waitFor();
    assert.equal(await page.getByRole('toolbar', { name: 'Editing tools' }).count(), 0);
    const shown = await buttons(page, 'main.stage-column');
    for (const control of EDIT_CONTROLS) assert.ok(!shown.includes(control), `a viewer is shown ${control}: ${shown.join(', ')}`);
    // The image's tags and description are shown, not editable.
    assert.equal(await page.getByRole('checkbox', { name: 'sunny' }).isDisabled(), true);
    assert.equal(await page.getByLabel('Description').isDisabled(), true);
    await checkAccessibility(page, 'the image view as viewer');
    await shootWideAndNarrow(page, SHOTS, 'image-viewer', false);

    // The editor's keys do nothing for a viewer: no tool is taken, nothing saved.
    const before = await revisions();
    await page.locator('.stage').click({ position: { x: 200, y: 200 } });
    for (const key of ['p', 'r', 's', 'Delete']) await page.keyboard.press(key);
    await page.keyboard.press('Control+s');
    assert.equal(await page.locator('.stage').getAttribute('data-tool'), null);
    assert.equal(await page.getByRole('toolbar', { name: 'Editing tools' }).count(), 0);
    assert.equal(await revisions(), before);

    // The gallery: a selection offers neither tagging nor deleting, and no export is offered.
    await page.goto(`${base}/projects/${projectId}/images`);
    await page.getByText('You are a viewer in this project: its managers make exports; you can download those made.').waitFor();
    assert.equal(await page.getByRole('form', { name: /^Export/ }).count(), 0);
    await page.getByRole('checkbox', { name: 'Select h0.png' }).check();
    await page.getByText('You are a viewer in this project: selected images can be looked at, not changed.').waitFor();
    assert.deepEqual(await buttons(page, '.batch-bar'), ['Clear selection']);

    // Settings, tags, versions and jobs: read, with the caption saying why.
    await page.goto(`${base}/projects/${projectId}/settings`);
    await page.getByText('You are a viewer in this project: only its managers change its settings, classes, datasets and members.').waitFor();
    await page.getByRole('heading', { name: 'Classes' }).waitFor();
    assert.deepEqual(await buttons(page, 'main'), []);
    assert.equal(await page.getByRole('heading', { name: 'Members' }).count(), 0);
    assert.equal(await page.getByLabel('Title').getAttribute('readonly'), '');
    await page.goto(`${base}/projects/${projectId}/tags`);
    await page.getByText('You are a viewer in this project: only its managers add, change or delete tags.').waitFor();
    await page.getByRole('heading', { name: 'Image tags' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'New tag' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Edit sunny' }).count(), 0);
    await page.goto(`${base}/projects/${projectId}/versions`);
    await page.getByText('You are a viewer in this project: only its managers make, export or delete versions.').waitFor();
    assert.equal(await page.getByRole('button', { name: /version/i }).count(), 0);
    await page.goto(`${base}/projects/${projectId}/jobs`);
    await page.getByText('You are a viewer in this project: only its managers make jobs. Your own jobs are under My work.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Make jobs' }).count(), 0);
    await page.context().close();
  });

  test('an annotator edits the annotation and the image tags, and manages nothing', async () => {
    const page = await signedInPage(browser, base, keys.ann);
    await page.goto(`${base}/images/${imageId}?project=${projectId}`);
    const toolbar = page.getByRole('toolbar', { name: 'Editing tools' });
    await toolbar.waitFor();
    const shown = await buttons(page, '.editor-toolbar');
    for (const control of EDIT_CONTROLS) assert.ok(shown.some((b) => b.startsWith(control)), `an annotator is not shown ${control}: ${shown.join(', ')}`);
    assert.equal(await page.getByText(/You are .* in this project/).count(), 0);
    // Image tags are the annotator's to set.
    assert.equal(await page.getByRole('checkbox', { name: 'sunny' }).isDisabled(), false);
    await checkAccessibility(page, 'the image view as annotator');
    await shootWideAndNarrow(page, SHOTS, 'image-annotator', false);
    // A tool whose shape no class has: the class is a manager's to add.
    await toolbar.getByRole('button', { name: /^Rectangle/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Only a manager of the project adds classes: ask one.').waitFor();
    assert.equal(await dialog.getByRole('button', { name: /Create/ }).count(), 0);
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The gallery: tagging the selection, not deleting it; no export.
    await page.goto(`${base}/projects/${projectId}/images`);
    await page.getByText('You are an annotator in this project: its managers make exports; you can download those made.').waitFor();
    await page.getByRole('checkbox', { name: 'Select h0.png' }).check();
    assert.deepEqual(await buttons(page, '.batch-bar'), ['Add tag', 'Clear selection']);
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByText('Tagging “sunny”: done for 1 image.').waitFor();
    const tagged = await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation`, key: t.key });
    assert.deepEqual(json<{ tags: string[] }>(tagged).tags, ['sunny']);

    await page.goto(`${base}/projects/${projectId}/settings`);
    await page.getByText('You are an annotator in this project: only its managers change its settings, classes, datasets and members.').waitFor();
    await page.getByRole('heading', { name: 'Classes' }).waitFor();
    assert.deepEqual(await buttons(page, 'main'), []);
    assert.equal(await page.getByRole('heading', { name: 'Members' }).count(), 0);
    await page.goto(`${base}/projects/${projectId}/jobs`);
    await page.getByText('You are an annotator in this project: only its managers make jobs. Your own jobs are under My work.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Make jobs' }).count(), 0);
    await page.context().close();
  });

  test('a manager has every tool, and gives roles in the members panel', async () => {
    const page = await signedInPage(browser, base, keys.mgr);
    await page.getByRole('link', { name: 'Settings: datasets and classes' }).waitFor();
    await page.goto(`${base}/images/${imageId}?project=${projectId}`);
    const toolbar = page.getByRole('toolbar', { name: 'Editing tools' });
    await toolbar.waitFor();
    await toolbar.getByRole('button', { name: /^Rectangle/ }).click();
    await page.getByRole('dialog').getByRole('heading', { name: 'New rectangle class' }).waitFor();
    await page.keyboard.press('Escape');

    await page.goto(`${base}/projects/${projectId}/images`);
    await page.getByRole('button', { name: 'Export Harbour' }).waitFor();
    await page.getByRole('checkbox', { name: 'Select h0.png' }).check();
    assert.deepEqual(await buttons(page, '.batch-bar'), ['Add tag', 'Mark as ground truth', 'Unmark', 'Delete', 'Clear selection']);
    await page.getByRole('link', { name: 'Quality' }).waitFor();
    await page.goto(`${base}/projects/${projectId}/jobs`);
    await page.getByRole('button', { name: 'Make jobs' }).waitFor();

    await page.goto(`${base}/projects/${projectId}/settings`);
    const panel = page.getByRole('region', { name: 'Members' });
    await panel.waitFor();
    assert.equal(await page.getByText(/You are .* in this project/).count(), 0);
    await page.getByRole('button', { name: 'Delete project…' }).waitFor();
    await panel.getByRole('row', { name: /vwr/ }).waitFor();
    assert.deepEqual((await panel.locator('tbody th').allInnerTexts()).map((s) => s.trim()), ['vwr', 'ann', 'mgr']);

    // Add a user of the team as a reviewer.
    const add = panel.getByRole('form', { name: 'Add a member' });
    await add.getByLabel('User').selectOption({ label: 'newbie' });
    await add.getByLabel('As').selectOption('reviewer');
    await add.getByRole('button', { name: 'Add member' }).click();
    await panel.getByText('newbie is now reviewer.').waitFor();
    assert.deepEqual((await listMembers()).items.find((m) => m.login === 'newbie')?.role, 'reviewer');

    // Change the viewer's role.
    await panel.getByLabel('Role of vwr').selectOption('annotator');
    await panel.getByText('vwr is now annotator.').waitFor();
    assert.equal((await listMembers()).items.find((m) => m.login === 'vwr')?.role, 'annotator');

    // The team's other members: from none to viewers.
    const fallback = panel.getByLabel('Role of the team’s other members');
    assert.equal(await fallback.inputValue(), 'none');
    await fallback.selectOption('viewer');
    await panel.getByText('The team’s other members are now viewers here.').waitFor();
    assert.equal((await listMembers()).memberDefaultRole, 'viewer');
    await checkAccessibility(page, 'the members panel');
    await panel.scrollIntoViewIfNeeded();
    await shootWideAndNarrow(page, SHOTS, 'members-panel', false);

    // Remove a member: the default applies to them again.
    await panel.getByRole('button', { name: 'Remove newbie' }).click();
    await panel.getByText('newbie has no role of their own here any more.').waitFor();
    assert.equal((await listMembers()).items.some((m) => m.login === 'newbie'), false);
    await page.context().close();
  });

  test('the projects page asks a member’s roles in all its projects in one request, and an owner’s in none', async () => {
    // Three more projects the team's members see as viewers, and one the annotator manages.
    const more: number[] = [];
    for (let i = 0; i < 3; i += 1) more.push(await newProject(t.ctx, { title: `Open ${i}` }));
    await members.putMember(t.ctx.db.kysely, more[2]!, await userId(t.ctx, 'alpha', 'ann'), 'manager');
    const roleRequests = (page: Page): string[] => {
      const seen: string[] = [];
      page.on('request', (request) => {
        const { pathname, search } = new URL(request.url());
        if (/^\/v2\/(projects\/\d+\/role|project-roles)$/.test(pathname)) seen.push(pathname + search);
      });
      return seen;
    };
    // The sign-in leaves the projects page reading the roles, maybe still: a blank page ends it before
    // the requests are counted.
    const member = await signedInPage(browser, base, keys.ann);
    await member.goto('about:blank');
    const asked = roleRequests(member);
    await member.goto(`${base}/`);
    await member.locator('.project-card').nth(3).waitFor();
    // The member manages Open 2: its card offers the settings, the others only the page to read.
    await member.getByRole('link', { name: 'Settings: datasets and classes' }).waitFor();
    assert.equal(await member.getByRole('link', { name: 'Settings: datasets and classes' }).count(), 1);
    assert.equal(asked.length, 1, asked.join(' '));
    assert.match(asked[0]!, /^\/v2\/project-roles\?projectIds=/);
    assert.deepEqual(new URLSearchParams(asked[0]!.split('?')[1]).get('projectIds')!.split(',').map(Number).sort((a, b) => a - b), [projectId, ...more].sort((a, b) => a - b));
    await member.context().close();

    const owner = await signedInPage(browser, base, t.key);
    await owner.goto('about:blank');
    const ownerAsked = roleRequests(owner);
    await owner.goto(`${base}/`);
    await owner.locator('.project-card').nth(3).waitFor();
    await owner.getByRole('link', { name: 'Settings: datasets and classes' }).nth(3).waitFor();
    assert.deepEqual(ownerAsked, []);
    await owner.context().close();
  });
});
