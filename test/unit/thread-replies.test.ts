// An annotation thread's answer arrives as it was prepared, whatever travels flat.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Preparation } from '../../src/tasks/handlers/annotation-preparation.ts';
import { packFacts, packPreparations, unpackFacts, unpackPreparations } from '../../src/tasks/handlers/thread-replies.ts';

test('preparations of every kind come back as they went, in order', () => {
  const preparations: Preparation[] = [
    { annotation: { description: '', objectsJson: '[]', imageTags: [], objectTags: [], objectTagValues: null } },
    { problem: 'annotation: objects[0]: a polygon needs at least 3 points' },
    { annotation: { description: 'snow ☃', objectsJson: '[{"classTitle":"car"}]', imageTags: [], objectTags: [], objectTagValues: null } },
    { annotation: { description: 'tagged', objectsJson: '[]', imageTags: [{ title: 'weather', value: '"rain"' }], objectTags: [], objectTagValues: null } },
    { annotation: { description: '', objectsJson: '[{"classTitle":"car","tags":["occluded"]}]', imageTags: [], objectTags: ['occluded'], objectTagValues: '{"1":{"occluded":1}}' } },
  ];
  const packed = packPreparations(preparations);
  assert.equal(packed.others.size, 3);
  assert.deepEqual(unpackPreparations(structuredClone(packed)), preparations);
  assert.deepEqual(unpackPreparations(packPreparations([])), []);
});

test('blob facts come back for the hashes found, with unknown dimensions as null', () => {
  const hashes = ['a', 'b', 'c', 'a'];
  const facts = new Map([
    ['a', { size: 2 ** 40, width: 640, height: 480 }],
    ['c', { size: 0, width: null, height: null }],
  ]);
  assert.deepEqual(unpackFacts(hashes, structuredClone(packFacts(hashes, facts))), facts);
});
