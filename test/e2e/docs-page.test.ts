// /docs under its content security policy, in Chromium: Swagger UI loads, lists the v2 operations and
// switches to v1, and the browser reports no violation of the policy; another site cannot frame it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects } from '../helpers/dialects.ts';
import { listeningPort } from '../helpers/raw-http.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

describe('the API reference at /docs', { skip: skipWithoutChromium('the /docs page test') }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  before(async () => {
    t = await startTestApp(dialects[0]!);
    origin = `http://127.0.0.1:${await listeningPort(t.app)}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('Swagger UI renders both documents and breaks no rule of its policy', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const res = await page.goto(`${origin}/docs`);
    assert.match(res!.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    await page.locator('.opblock-summary-path', { hasText: '/v2/projects' }).first().waitFor({ timeout: 90_000 });
    // The other document, chosen in the top bar.
    await page.locator('select#select').selectOption({ label: 'v1 (deprecated)' });
    await page.locator('.opblock-summary-path', { hasText: '/v1/projects' }).first().waitFor({ timeout: 90_000 });
    // An operation opened: its parameters and answers are drawn (icons and styles included).
    await page.locator('.opblock-summary', { hasText: '/v1/projects' }).first().click();
    await page.locator('.opblock-body .responses-wrapper').first().waitFor({ timeout: 60_000 });
    assert.deepEqual(violations, []);
    await page.close();
  });

  test('another site’s page cannot frame it', async () => {
    const page = await browser.newPage();
    const refused = page.waitForEvent('console', { predicate: (message) => /frame-ancestors/.test(message.text()), timeout: 20_000 });
    await page.setContent(`<iframe src="${origin}/docs"></iframe>`);
    assert.match((await refused).text(), /violates .*"frame-ancestors 'none'".* blocked/);
    await page.close();
  });
});
