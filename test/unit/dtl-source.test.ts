// A page of source images as the DTL task runs it: an item keeps its pixels once a layer decoded
// them, so the page must let each item go as it is handed out, or a page of 200 large photos would
// hold all their pixels until its end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { type DtlItem, rawImage } from '../../src/dtl/item.ts';
import { type SourcePage, takeItems } from '../../src/tasks/handlers/dtl-source.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A full collection once the current job is over (a WeakRef keeps its target until then). */
async function collect(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

function photo(name: string): DtlItem {
  const pixels = { data: Buffer.alloc(1024 * 1024, 7), width: 512, height: 683, channels: 3 as const };
  return {
    name,
    dataset: 'p__ds',
    source: { project: 'p', dataset: 'ds' },
    annotation: { description: '', tags: [], size: { width: 512, height: 683 }, objects: [] },
    image: rawImage(pixels),
  };
}

test('takeItems hands out every item in order, and the page holds none of them afterwards', () => {
  const page: SourcePage = { items: [photo('a.jpg'), photo('b.jpg'), photo('c.jpg')], sizes: new Map() };
  assert.deepEqual([...takeItems(page)].map((i) => i.name), ['a.jpg', 'b.jpg', 'c.jpg']);
  assert.equal(page.items.length, 0);
});

test('the pixels of an item that has run are freed while the rest of its page is still running', async () => {
  const page: SourcePage = { items: [photo('a.jpg'), photo('b.jpg'), photo('c.jpg')], sizes: new Map() };
  const seen: WeakRef<Buffer>[] = [];
  for (const item of takeItems(page)) {
    seen.push(new WeakRef((await item.image.raw()).data));
    if (item.name === 'c.jpg') {
      await collect();
      assert.equal(seen[0]!.deref(), undefined, "a.jpg's pixels are still held");
      assert.equal(seen[1]!.deref(), undefined, "b.jpg's pixels are still held");
    }
  }
  // The page itself is alive to the end, as it is in the task.
  assert.ok(page.sizes);
});
