// Accounts in a real Chromium: an admin invites a user on the team's users page, the user opens the
// one-time link, sets a password, signs in with it, and once the admin disables them, their page stops
// working. Each page is checked with axe and shot at 1440×900 and 390×844.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web accounts tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-accounts-shots');
const SIZES = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

async function shoot(page: Page, label: string): Promise<void> {
  await checkAccessibility(page, label);
  const before = page.viewportSize()!;
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.screenshot({ path: path.join(SHOTS, `${label}-${size.name}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}

describe('accounts in the web interface', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  before(async () => {
    t = await startTestApp(dialects[0]!, { accounts: { ...loadConfig({}).accounts, scryptCost: { logN: 14, r: 8, p: 1 } } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('an admin invites a user; the user sets a password with the link and signs in; disabled, their page stops', { timeout: 120_000 }, async () => {
    const admin = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })).newPage();
    const user = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })).newPage();
    admin.setDefaultTimeout(15_000);
    user.setDefaultTimeout(15_000);

    await user.goto(`${base}/`);
    await user.getByRole('heading', { name: 'Sign in to Annostore' }).waitFor();
    await shoot(user, 'sign-in');

    await signIn(admin, base, t.adminKey);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByRole('heading', { name: 'Users of team alpha' }).waitFor();
    await admin.getByLabel('Login').fill('nina');
    await admin.getByRole('button', { name: 'Invite' }).click();
    const linkField = admin.getByLabel('Link');
    await linkField.waitFor();
    const link = await linkField.inputValue();
    assert.match(link, new RegExp(`^${base}/set-password#[\\w-]{43}$`));
    await admin.locator('tr[data-login="nina"]').getByText('invited').waitFor();
    await shoot(admin, 'team-users');

    await user.goto(link);
    await user.getByRole('heading', { name: 'Welcome to Annostore' }).waitFor();
    await shoot(user, 'set-password');
    await user.getByLabel('New password').fill('ninas long password');
    await user.getByLabel('Repeat it').fill('ninas long password');
    await user.getByRole('button', { name: 'Set password and sign in' }).click();
    await user.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    assert.equal(new URL(user.url()).hash, '', 'the used token left the address bar');

    // Signed out, the user signs in with the password just set.
    await user.getByRole('button', { name: 'Sign out' }).click();
    await user.getByLabel('Login').fill('nina');
    await user.getByLabel('Password', { exact: true }).fill('ninas long password');
    await user.getByRole('button', { name: 'Sign in', exact: true }).click();
    await user.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await user.getByRole('link', { name: /nina · alpha/ }).click();
    await user.getByRole('heading', { name: 'Your account' }).waitFor();
    await user.getByRole('cell', { name: 'this browser' }).waitFor();
    await shoot(user, 'account');

    await admin.reload();
    await admin.locator('tr[data-login="nina"]').getByText('active').waitFor();
    await admin.getByRole('button', { name: 'Disable nina' }).click();
    await admin.locator('tr[data-login="nina"]').getByText('disabled').waitFor();

    // The user's next request is refused: the interface asks to sign in again.
    await user.getByRole('link', { name: 'Tasks' }).click();
    await user.getByRole('heading', { name: 'Sign in to Annostore' }).waitFor();
    await user.getByLabel('Login').fill('nina');
    await user.getByLabel('Password', { exact: true }).fill('ninas long password');
    await user.getByRole('button', { name: 'Sign in', exact: true }).click();
    await user.getByText('Wrong login or password, or the account is disabled.').waitFor();
  });
});
