// An import task's preparation of one Supervisely annotation file refuses what would not fit in
// memory before parsing it: a file past 64 MiB, and one past the objects limit, counted first.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProjectMeta } from '../../src/formats/supervisely/index.ts';
import { MAX_ANNOTATION_FILE_BYTES, prepareAnnotation } from '../../src/tasks/handlers/annotation-preparation.ts';

const meta: ProjectMeta = { classes: [{ title: 'dot', shape: 'rectangle', color: '#FF0000' }], tags: [], unsupported: [] };

describe('annotation preparation limits', () => {
  test('a file past 64 MiB is refused unread', () => {
    const bytes = Buffer.alloc(MAX_ANNOTATION_FILE_BYTES + 1, 0x20);
    assert.deepEqual(prepareAnnotation(bytes, meta), { problem: 'annotation: the file is larger than 64 MiB, the limit for an annotation file' });
  });

  test('a file of a megabyte or more is refused at its first object past the limit', () => {
    const object = { classTitle: 'dot', description: 'x'.repeat(100), tags: [], points: { exterior: [[1, 1], [2, 2]], interior: [] } };
    const annotation = { description: '', tags: [], size: { width: 9, height: 9 }, objects: Array.from({ length: 10_001 }, () => object) };
    assert.deepEqual(prepareAnnotation(Buffer.from(JSON.stringify(annotation)), meta), { problem: 'annotation: objects: more than 10000 objects; the limit is 10000 objects per image' });
    annotation.objects.pop();
    const prepared = prepareAnnotation(Buffer.from(JSON.stringify(annotation)), meta);
    assert.ok('annotation' in prepared, JSON.stringify(prepared).slice(0, 200));
  });
});
