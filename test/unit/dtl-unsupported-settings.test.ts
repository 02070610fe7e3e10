// Settings no form of a layer's schema has are named in words, with the pointer of the first; members
// the schema has, only not together, are left to the schema's own message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import { LAYER_SETTINGS } from '../../src/dtl/config.ts';
import { unsupportedMembers } from '../../src/dtl/unsupported-settings.ts';

const named = (action: keyof typeof LAYER_SETTINGS, settings: unknown) => unsupportedMembers(LAYER_SETTINGS[action], [...Value.Errors(LAYER_SETTINGS[action], settings)]);

test('an unknown condition of if is named, and several are named together', () => {
  assert.deepEqual(named('if', { condition: { colour: 'red' } }), { message: 'condition colour is not supported', at: '/condition/colour' });
  assert.deepEqual(named('if', { condition: { colour: 'red', shade: 2 } }), { message: 'condition colour and shade are not supported', at: '/condition/colour' });
});

test('an unknown top-level setting is a setting; a nested one names its path', () => {
  assert.deepEqual(named('save', { visualize: true, 'a/b': 1 }), { message: 'setting a/b is not supported', at: '/a~1b' });
  assert.deepEqual(named('objects_filter', { filter_by: { shades: ['a'] } }), { message: 'filter_by shades is not supported', at: '/filter_by/shades' });
});

test('two known conditions given together are no unknown member', () => {
  assert.equal(named('if', { condition: { probability: 0.5, tags: ['a'] } }), null);
});
