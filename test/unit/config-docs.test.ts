// docs/configuration.md lists every environment variable the server reads, and only those: the
// table is compared with the variables src/config.ts (the one place that reads the environment) names.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Read by the config, set by the command itself (bin/annostore.js), not by whoever runs it. */
const SET_BY_THE_COMMAND = new Set(['ANNOSTORE_ROOT']);

test('docs/configuration.md documents exactly the environment variables src/config.ts reads', () => {
  const source = fs.readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
  // Read as env.NAME, or named as a quoted constant that a parser reads with env[name].
  const names = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)].map((m) => (m[1] ?? m[2])!);
  const read = new Set(names.filter((name) => !SET_BY_THE_COMMAND.has(name)));
  const table = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
  const documented = new Set(
    table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)),
  );
  assert.ok(read.size > 30, 'the variables are found in src/config.ts');
  assert.deepEqual([...read].filter((name) => !documented.has(name)).sort(), [], 'read but not documented');
  assert.deepEqual([...documented].filter((name) => !read.has(name)).sort(), [], 'documented but never read');
});
