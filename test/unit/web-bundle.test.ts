// The web interface is bundled for the browser (src/http/web-bundle.ts): nothing it imports may need
// Node. It plans imports with the code of `annostore import` (src/client/folder-plan.ts and the format
// layouts), so a Node module brought into that code breaks the interface; this build says so.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { buildWebBundle } from '../../src/http/web-bundle.ts';

const WEB = path.resolve(import.meta.dirname, '../../web');

test('the web bundle builds for the browser, with the import planners of the command line and no Node module', async () => {
  let bundle;
  try {
    bundle = await buildWebBundle(WEB);
  } catch (error) {
    // esbuild's message names each module that could not be found for the browser (node:fs, node:zlib…).
    assert.fail(`the web interface does not bundle for the browser:\n${(error as Error).message}`);
  }
  const scripts = [...bundle.assets].filter(([name]) => name.endsWith('.js'));
  assert.ok(scripts.length > 1, 'the format readers are a chunk of their own, loaded for a folder of their format');
  const text = scripts.map(([, asset]) => asset.body.toString('utf8')).join('\n');
  assert.doesNotMatch(text, /\b(from|import)\s*\(?\s*["']node:/, 'no import of a Node module is left for the browser to resolve');
  // The planners' own words: the folder layouts each format is looked for in, and a reader's message.
  const app = bundle.assets.get('app.js')!.body.toString('utf8');
  assert.match(app, /meta\.json or classes\.json at the root/);
  assert.match(app, /Annotations\/\*\.xml with JPEGImages\//);
  assert.match(text, /this is a COCO results list/);
});
