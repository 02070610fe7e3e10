// Debian's Chromium driven by playwright-core, as every browser test and bench uses it: where it is,
// how it starts, and the accessibility check each page passes. Never a browser of playwright's own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import { type Browser, type Page, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The skip reason of tests of `what` on a machine without Chromium (printed, like PostgreSQL's), or false. */
export function skipWithoutChromium(what: string): string | false {
  if (fs.existsSync(CHROMIUM)) return false;
  const reason = `Chromium not found at ${CHROMIUM}: ${what} skipped`;
  console.log(`# ${reason}`);
  return reason;
}

/**
 * Headless, without a sandbox (containers), a GPU or background traffic. `scrollbars` keeps the
 * scrollbars playwright hides by default, for a test that drags one.
 */
export const launchChromium = (options: { scrollbars?: boolean } = {}): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    ...(options.scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
  });

/**
 * axe-core on the page as it is: no serious or critical violation. axe is added as a script of its
 * own, which the app's content policy refuses: the page's context needs `bypassCSP: true`.
 */
export async function checkAccessibility(page: Page, label: string): Promise<void> {
  await page.addScriptTag({ content: axe.source });
  // Functions run in the page are given as text: the tests have no DOM types.
  const result = (await page.evaluate('axe.run(document)')) as axe.AxeResults;
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`),
    [],
    `accessibility of ${label}`,
  );
}

/** Signs in on the app at `base` with `key`, as a user does, and waits for the projects page. */
export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
}

/** A new browser context at 1440×900, signed in with `key`, its steps waiting 15 s at most. */
export async function signedInPage(browser: Browser, base: string, key: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await signIn(page, base, key);
  return page;
}

/**
 * The page photographed at 1440×900 (`<name>.png`, the whole page unless `wideFullPage` is false), then
 * at 390×844 (`<name>-narrow.png`, the whole page), into `dir`; it is left at the wide size.
 */
export async function shootWideAndNarrow(page: Page, dir: string, name: string, wideFullPage = true): Promise<void> {
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: wideFullPage });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(dir, `${name}-narrow.png`), fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
}
