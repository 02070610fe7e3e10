// The web interface's import under a low upload-bytes limit, in a real Chromium: a request refused
// with 429 is sent again after its Retry-After (the form says it is waiting), and the import finishes.
// Without Chromium at CHROMIUM_PATH (default /usr/bin/chromium) the test skips with a line that says so.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { type Browser, type Page, chromium } from 'playwright-core';
import sharp from 'sharp';
import { taskHandlers } from '../../src/tasks/registry.ts';
import { startTaskRunner } from '../../src/tasks/runner.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const chromiumSkip = fs.existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}: web interface tests skipped`;
if (chromiumSkip) console.log(`# ${chromiumSkip}`);
const SHOTS = process.env.WEB_SCREENSHOTS ?? tempDir('web-shots');

describe('the web import under an upload-bytes limit', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  before(async () => {
    // 50 kB/s, 100 kB at once: the folder's one upload request (about 300 kB) leaves the key in debt
    // for some 4 s, which the hash check or the start of the import then waits out.
    t = await startTestApp(dialects[0]!, { rateLimits: { requests: null, uploadBytes: { perSecond: 50_000, burst: 100_000 }, signInFailures: null, store: 'auto' } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# screenshots in ${SHOTS}`);
  });

  test('a 429 is waited out for its Retry-After, the form says so, and the import finishes', { timeout: 90_000 }, async () => {
    const folder = path.join(tempDir('web-rate-limit'), 'noisy');
    fs.mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 4; i++) {
      const png = await sharp(randomBytes(150 * 150 * 3), { raw: { width: 150, height: 150, channels: 3 } }).png().toBuffer();
      fs.writeFileSync(path.join(folder, `n${i}.png`), png);
    }
    const runner = startTaskRunner(t.ctx, pino({ level: 'silent' }) as unknown as FastifyBaseLogger, { handlers: taskHandlers(t.ctx), pollMs: 20, leaseMs: 5000 });
    try {
      await page.goto(`${base}/`);
      await page.getByLabel('API key').fill(t.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await page.getByLabel('Choose a folder…').setInputFiles(folder);
      await page.getByLabel('What will be imported').filter({ hasText: 'Folder of images: 4 images' }).waitFor();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByText(/^Waiting \d+ s \(rate limit\)$/).waitFor({ timeout: 30_000 });
      await page.locator('section.import').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'import-rate-limited.png') });
      await page.getByRole('status').filter({ hasText: 'Import finished.' }).waitFor({ timeout: 60_000 });
    } finally {
      await runner.stop();
    }
  });
});
