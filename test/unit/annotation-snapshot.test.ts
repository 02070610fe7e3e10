import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { decodeSnapshot, encodeSnapshot } from '../../src/formats/annotation-snapshot.ts';

const snapshotOf = (objectsJson: string) => ({ description: 'd', tags: [{ title: 't', value: '"v"' }], objectsJson, objectIds: null, nextObjectId: null, objectTagValues: null });

/** Objects text of about `bytes` bytes, with repeats far apart as well as near. */
function objectsOfSize(bytes: number): string {
  const objects = [];
  for (let i = 0; objects.join(',').length < bytes; i += 1) objects.push(`{"classTitle":"c${i % 7}","points":[[${(i * 37) % 640},${(i * 91) % 480}],[${i % 13},${i % 29}]]}`);
  return `[${objects.join(',')}]`;
}

test('a snapshot of any size reads back as it was written, and deflates to no more bytes than with the default window', () => {
  for (const bytes of [0, 100, 511, 512, 513, 3000, 40_000, 500_000]) {
    const snapshot = snapshotOf(bytes === 0 ? '[]' : objectsOfSize(bytes));
    const encoded = encodeSnapshot(snapshot);
    assert.deepEqual(decodeSnapshot(encoded.body), snapshot, `${bytes} bytes`);
    const text = Buffer.from(JSON.stringify({ description: 'd', tags: [['t', '"v"']], objectsJson: snapshot.objectsJson, objectIds: null, nextObjectId: null, objectTagValues: null }));
    assert.equal(encoded.size, text.length);
    assert.ok(encoded.body.length <= deflateRawSync(text).length, `${bytes} bytes: ${encoded.body.length} > ${deflateRawSync(text).length}`);
  }
});

test('equal states have one hash whatever their size, and different states different ones', () => {
  const a = encodeSnapshot(snapshotOf(objectsOfSize(5000)));
  assert.equal(encodeSnapshot(snapshotOf(objectsOfSize(5000))).hash, a.hash);
  assert.notEqual(encodeSnapshot(snapshotOf(objectsOfSize(6000))).hash, a.hash);
});
