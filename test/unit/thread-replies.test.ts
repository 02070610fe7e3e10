// An annotation thread's answer arrives as it was prepared, whatever travels flat.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Preparation, withDerived } from '../../src/tasks/handlers/annotation-preparation.ts';
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

test('the forms derived on a thread come back as they were made: the content snapshot as a Buffer, every box and class title', () => {
  const objects = (n: number, cls: string) =>
    JSON.stringify(Array.from({ length: n }, (_, i) => ({ classTitle: `${cls}${i % 2}`, bitmap: null, points: { exterior: [[i, 2 * i], [i + 10, 2 * i + 5.5], [i, 40]], interior: [] } })));
  const preparations: Preparation[] = [
    { annotation: { description: 'a', objectsJson: objects(3, 'car'), imageTags: [], objectTags: [], objectTagValues: null } },
    { problem: 'annotation: the annotation file is not valid JSON' },
    { annotation: { description: '', objectsJson: '[]', imageTags: [], objectTags: [], objectTagValues: null } },
    { annotation: { description: '', objectsJson: objects(5, 'person'), imageTags: [{ title: 'weather', value: null }], objectTags: [], objectTagValues: null } },
    { annotation: { description: 'b', objectsJson: objects(2, 'car'), imageTags: [], objectTags: [], objectTagValues: null } },
  ].map(withDerived);
  const back = unpackPreparations(structuredClone(packPreparations(preparations)));
  assert.deepEqual(back, preparations);
  for (const p of back) if ('annotation' in p) assert.ok(Buffer.isBuffer(p.annotation.derived!.content.body));
  // Mixed with preparations made without them (a thread's part is all of one kind, but the format is not).
  const mixed = [preparations[0]!, { annotation: { description: '', objectsJson: '[]', imageTags: [], objectTags: [], objectTagValues: null } }, preparations[4]!];
  assert.deepEqual(unpackPreparations(structuredClone(packPreparations(mixed))), mixed);
});

test('blob facts come back for the hashes found, with unknown dimensions as null', () => {
  const hashes = ['a', 'b', 'c', 'a'];
  const facts = new Map([
    ['a', { size: 2 ** 40, width: 640, height: 480 }],
    ['c', { size: 0, width: null, height: null }],
  ]);
  assert.deepEqual(unpackFacts(hashes, structuredClone(packFacts(hashes, facts))), facts);
});
