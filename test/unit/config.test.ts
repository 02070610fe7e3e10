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

test('SESSION_TTL_HOURS: a week by default, whole hours up to a year; TRUST_PROXY: true or false only', () => {
  assert.equal(loadConfig({}).sessionTtlMs, 7 * 24 * 3600_000);
  assert.equal(loadConfig({ SESSION_TTL_HOURS: '12' }).sessionTtlMs, 12 * 3600_000);
  for (const bad of ['0', '1.5', 'forever', String(24 * 367)]) {
    assert.throws(() => loadConfig({ SESSION_TTL_HOURS: bad }), (error: unknown) => error instanceof ConfigError && /SESSION_TTL_HOURS/.test(error.message));
  }
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
  assert.throws(() => loadConfig({ TRUST_PROXY: 'yes please' }), (error: unknown) => error instanceof ConfigError && /TRUST_PROXY/.test(error.message));
});
