// Single sign-on in a real Chromium: an admin invites a user with their email on the team's users page;
// the sign-in page offers "Sign in with <label>"; clicking it goes to a
// real OpenID Connect provider (oidc-provider on loopback, another site: 127.0.0.1 against the app's
// localhost), whose login and consent pages are filled in, and the browser comes back signed in as the
// invited user of that email; an account linked to nobody comes back to a page that says why. The pages
// are checked with axe and shot at 1440×900 and 390×844.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { checkAccessibility, launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { type OpenIdProvider, startOpenIdProvider } from '../helpers/openid-provider.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('web single sign-on tests');
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-sso-shots');
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

describe('single sign-on in the web interface', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let provider: OpenIdProvider;
  let base: string;
  let browser: Browser;
  before(async () => {
    provider = await startOpenIdProvider();
    const settings = loadConfig({ OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_TEAM: 'alpha', OIDC_BUTTON_LABEL: 'Example ID' }).accounts
      .singleSignOn!;
    t = await startTestApp(dialects[0]!, { accounts: { ...dialects[0]!.freshConfig().accounts, singleSignOn: settings } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://localhost:${(t.app.server.address() as AddressInfo).port}`;
    provider.register(`${base}/v2/session/oidc/callback`);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await provider?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('the button takes an invited user through the provider and back, signed in', { timeout: 120_000 }, async () => {
    const admin = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })).newPage();
    admin.setDefaultTimeout(15_000);
    await signIn(admin, base, t.adminKey);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByLabel('Login').fill('olga');
    await admin.getByLabel('Email (optional)').fill('Olga@example.com');
    await admin.getByRole('button', { name: 'Invite' }).click();
    await admin.locator('tr[data-login="olga"]').getByText('invited').waitFor();
    await shoot(admin, 'team-users-invite-email');
    provider.accounts.set('olga-at-provider', { email: 'olga@example.com', email_verified: true });

    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/`);
    const button = page.getByRole('link', { name: 'Sign in with Example ID' });
    await button.waitFor();
    await shoot(page, 'sign-in-single-sign-on');

    await button.click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name="login"]').fill('olga-at-provider');
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
    await page.locator('button[type="submit"]').click();

    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).origin, base);
    await page.screenshot({ path: path.join(SHOTS, 'signed-in-single-sign-on-wide.png') });
    const who = (await page.evaluate('fetch("/v2/session").then((r) => r.json())')) as { user: { login: string } };
    assert.equal(who.user.login, 'olga');

    // The admin's list now shows olga active: linked, with no password.
    await admin.reload();
    await admin.locator('tr[data-login="olga"]').getByText('active').waitFor();
  });

  test('an account no user is linked to comes back to a page that says why, with a way back to sign in', { timeout: 120_000 }, async () => {
    provider.accounts.set('stranger-at-provider', { email: 'stranger@example.com', email_verified: true });
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Example ID' }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name="login"]').fill('stranger-at-provider');
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
    const callback = page.waitForResponse((response) => response.url().startsWith(`${base}/v2/session/oidc/callback`));
    await page.locator('button[type="submit"]').click();
    assert.equal((await callback).status(), 403);

    await page.getByRole('heading', { name: 'Single sign-on did not complete', level: 1 }).waitFor();
    assert.match(await page.getByRole('alert').innerText(), /no user of the team is linked to this account or has its email/);
    await shoot(page, 'single-sign-on-refused');
    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in to Annostore', level: 1 }).waitFor();
    assert.equal((await page.evaluate('fetch("/v2/session").then((r) => r.status)')) as number, 401);
  });
});
