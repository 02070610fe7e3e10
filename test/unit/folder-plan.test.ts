// The import planners with no disk under them: the paths and texts of a folder held in memory, read
// as a browser reads dropped files (plain Uint8Array chunks, no Buffer), planned as `annostore
// import` plans a folder it walked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FolderError, planFolder, type FileSource, type ListedFile } from '../../src/client/folder-plan.ts';

/** A folder in memory: each file's text by path (an image's text is only its bytes' stand-in). */
function folder(files: Record<string, string>): { found: ListedFile[]; source: FileSource; reads: string[] } {
  const encoder = new TextEncoder();
  const reads: string[] = [];
  const found = Object.keys(files)
    .sort()
    .map((path) => ({ path, size: encoder.encode(files[path]).length }));
  const source: FileSource = {
    async text(path) {
      reads.push(path);
      return files[path]!;
    },
    async stream(path) {
      reads.push(path);
      const bytes = encoder.encode(files[path]);
      // Small chunks, split inside values, as a stream of a large file would be.
      return (async function* () {
        for (let i = 0; i < bytes.length; i += 7) yield new Uint8Array(bytes.subarray(i, i + 7));
      })();
    },
  };
  return { found, source, reads };
}

const coco = JSON.stringify({
  images: [
    { id: 1, file_name: 'a.jpg', width: 4, height: 4 },
    { id: 2, file_name: 'b.jpg', width: 4, height: 4 },
  ],
  annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [0, 0, 2, 2] }],
  categories: [{ id: 1, name: 'cat' }],
});

describe('planning an import from files held in memory', () => {
  test('COCO: the datasets and the images they name are sent; a results list and other images are left out with a note', async () => {
    const { found, source, reads } = folder({
      'annotations/instances_train.json': coco,
      'annotations/results.json': '[{"image_id":1,"category_id":1,"score":0.5}]',
      'images/a.jpg': 'jpeg a',
      'images/b.jpg': 'jpeg b',
      'images/unlisted.jpg': 'jpeg c',
      'README.md': 'notes',
    });
    const plan = await planFolder('dropped', found, source);
    assert.equal(plan.format, 'coco');
    assert.equal(plan.preset, 3);
    assert.deepEqual(
      plan.files.map((f) => [f.path, f.kind]),
      [
        ['annotations/instances_train.json', 'annotation'],
        ['images/a.jpg', 'image'],
        ['images/b.jpg', 'image'],
      ],
    );
    assert.deepEqual(plan.ignored, ['README.md', 'annotations/results.json', 'images/unlisted.jpg']);
    assert.match(plan.notes.join('\n'), /results\.json.*a COCO results list/);
    assert.ok(!reads.some((p) => p.endsWith('.jpg')), 'no image is read to plan');
  });

  test('YOLO: each image with its label file, the names file as the classes', async () => {
    const { found, source } = folder({
      'obj.names': 'cat\ndog\n',
      'images/train/1.jpg': 'one',
      'labels/train/1.txt': '0 0.5 0.5 0.2 0.2\n',
      'images/train/2.jpg': 'two',
    });
    const plan = await planFolder('dropped', found, source);
    assert.equal(plan.format, 'yolo');
    const image = plan.files.find((f) => f.path === 'images/train/1.jpg')!;
    assert.deepEqual(plan.companions.get(image)?.map((f) => f.path), ['labels/train/1.txt']);
    assert.equal(plan.files.find((f) => f.path === 'obj.names')?.kind, 'class');
  });

  test('a folder of several formats is refused, telling how to choose in the words the caller gives', async () => {
    const { found, source } = folder({ 'data.yaml': 'names: [cat]\n', 'a.xml': '<annotation/>', 'images/a.jpg': 'a', 'labels/a.txt': '' });
    await assert.rejects(planFolder('dropped', found, source), (error: Error) => {
      assert.ok(error instanceof FolderError);
      assert.match(error.message, /dropped holds the files of several formats: Pascal VOC \(a\.xml\), YOLO \(data\.yaml\); choose one with --preset 4 \(Pascal VOC\), 5 \(YOLO\)/);
      return true;
    });
    await assert.rejects(
      planFolder('dropped', found, source, 0, (formats) => `pick ${formats.join(' or ')}`),
      /several formats: .*; pick pascal_voc or yolo$/,
    );
    const chosen = await planFolder('dropped', found, source, 5);
    assert.equal(chosen.format, 'yolo');
  });

  test('a folder with no image says what was looked for', async () => {
    const { found, source } = folder({ 'notes.txt': 'text' });
    await assert.rejects(planFolder('dropped', found, source), /dropped is not a project: no images found .*looked for a Supervisely project/s);
  });
});
