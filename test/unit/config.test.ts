// Settings read from the environment: the defaults, and a clear error for a value out of range.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('HEAP_GROWTH_PERCENT: 20 by default, 0 leaves V8 its own, anything else is refused by name', () => {
  assert.equal(loadConfig({}).heapGrowthPercent, 20);
  assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent, 0);
  assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '50' }).heapGrowthPercent, 50);
  for (const bad of ['-1', '2.5', 'lots', '1001']) {
    assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: bad }), (error: unknown) => error instanceof ConfigError && /HEAP_GROWTH_PERCENT/.test(error.message));
  }
});

test('ANNOSTORE_API_KEY: a key no request could use is refused with the rule, never echoed', () => {
  assert.equal(loadConfig({}).bootstrapApiKey, undefined);
  assert.equal(loadConfig({ ANNOSTORE_API_KEY: '' }).bootstrapApiKey, undefined);
  for (const usable of ['abcdefgh', 'ak_configured-key-for-admin-000000', 'two words~!', 'x'.repeat(512)]) {
    assert.equal(loadConfig({ ANNOSTORE_API_KEY: usable }).bootstrapApiKey, usable);
  }
  const unusable = ['k1', 'abcdefg', 'x'.repeat(513), ' leading-space', 'trailing-space ', 'tab\tinside', 'line\nbreak-key', 'schlüssel-geheim'];
  for (const key of unusable) {
    assert.throws(
      () => loadConfig({ ANNOSTORE_API_KEY: key }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.startsWith('ANNOSTORE_API_KEY must be 8 to 512 printable ASCII characters, without a space at either end') &&
        !error.message.includes(key.trim()),
      JSON.stringify(key),
    );
  }
});
