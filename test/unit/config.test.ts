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
