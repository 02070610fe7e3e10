// Pass 3 of a streamed COCO read (stream-reader.ts) for a file that does not list its annotations
// image by image (the COCO tools list them by category, or in no order): gathering each image's
// objects in memory until its last annotation comes would hold nearly every object of the file at
// once. Instead the objects go to bucket files on disk, each bucket a run of whole images of about
// the same number of annotations, then each bucket is read back and its images handed over one by
// one. Memory holds the write buffers of the buckets and one bucket's text, whatever the file's size.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ShapedObject } from '../canonical.ts';
import { TextSpool } from '../spool.ts';
import type { CocoImage } from './image-index.ts';
import { type ByteSource, type CocoIndexFile, readPass } from './index-reader.ts';
import { convertAnnotation, placeAnnotation } from './reader.ts';

/** Annotations a bucket holds at least (so a small file makes few files)… */
const MIN_BUCKET_ANNOTATIONS = 20_000;
/** …and buckets at most: each one has a file open and a write buffer while the file is read. */
const MAX_BUCKETS = 256;
/** The write buffer of a bucket, in characters: 256 of them stay near 16 MB. */
const BUCKET_FLUSH_CHARS = 64 * 1024;

/** Images in `counts` order, cut into runs of about `size` annotations (an image never split). */
function bucketsOf(counts: ReadonlyMap<string, number>): { bucketOf: Map<string, number>; ordinal: Map<string, number>; buckets: number } {
  let total = 0;
  for (const n of counts.values()) total += n;
  // Two buckets in a row hold more than `size` (a bucket is closed only when the next image would
  // overfill it), so this size makes at most about MAX_BUCKETS of them.
  const size = Math.max(MIN_BUCKET_ANNOTATIONS, Math.ceil((2 * total) / MAX_BUCKETS));
  const bucketOf = new Map<string, number>();
  const ordinal = new Map<string, number>();
  let bucket = 0;
  let filled = 0;
  for (const [id, n] of counts) {
    if (filled > 0 && filled + n > size) {
      bucket += 1;
      filled = 0;
    }
    bucketOf.set(id, bucket);
    ordinal.set(id, ordinal.size);
    filled += n;
  }
  return { bucketOf, ordinal, buckets: counts.size === 0 ? 0 : bucket + 1 };
}

/**
 * Hands over each image of `counts` (the survey's annotations per image id, in the order the images
 * first appear) with its objects in file order, having grouped them on disk under `tempDir` (a folder of its own is made there and removed at the end).
 */
export async function spoolObjectsByImage(
  open: ByteSource,
  file: CocoIndexFile,
  counts: ReadonlyMap<string, number>,
  tempDir: string,
  take: (image: CocoImage, objects: ShapedObject[]) => Promise<void>,
): Promise<void> {
  const { bucketOf, ordinal, buckets } = bucketsOf(counts);
  const images: CocoImage[] = [];
  for (const id of counts.keys()) images.push(file.index.images.get(id)!);
  const dir = await fsp.mkdtemp(path.join(tempDir, 'coco-objects-'));
  try {
    const spools: TextSpool[] = [];
    for (let b = 0; b < buckets; b += 1) spools.push(await TextSpool.create(dir, `bucket-${b}.jsonl`, BUCKET_FLUSH_CHARS));
    // Lines of the chunk being read, by bucket; written out after the chunk.
    let lines: string[][] = spools.map(() => []);
    const ignore = () => {};
    const writeLines = async () => {
      const chunk = lines;
      lines = spools.map(() => []);
      for (let b = 0; b < buckets; b += 1) if (chunk[b]!.length > 0) await spools[b]!.write(chunk[b]!.join(''));
    };
    await readPass(
      open,
      file.path,
      new Set(['annotations']),
      (_key, i, value) => {
        const placed = placeAnnotation(file.index, value, i);
        if ('warning' in placed) return;
        const bucket = bucketOf.get(placed.image.id);
        if (bucket === undefined) return; // not wanted
        // One line an annotation: the image's ordinal, then its objects (JSON has no raw newline).
        lines[bucket]!.push(`${ordinal.get(placed.image.id)!}\t${JSON.stringify(convertAnnotation(placed, ignore))}\n`);
      },
      writeLines,
    );
    await writeLines();
    for (const spool of spools) await spool.end();
    for (const spool of spools) {
      await handOverBucket(spool, images, take);
      await spool.remove();
    }
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Reads one bucket back and hands over its images, in the order they first appeared in the file. */
async function handOverBucket(spool: TextSpool, images: readonly CocoImage[], take: (image: CocoImage, objects: ShapedObject[]) => Promise<void>): Promise<void> {
  const byImage = new Map<number, string[]>();
  for await (const line of createInterface({ input: spool.read(), crlfDelay: Infinity })) {
    if (line === '') continue;
    const tab = line.indexOf('\t');
    const at = Number(line.slice(0, tab));
    const list = byImage.get(at);
    const objects = line.slice(tab + 1);
    if (list) list.push(objects);
    else byImage.set(at, [objects]);
  }
  for (const at of [...byImage.keys()].sort((a, b) => a - b)) {
    const objects: ShapedObject[] = [];
    for (const text of byImage.get(at)!) for (const o of JSON.parse(text) as ShapedObject[]) objects.push(o);
    byImage.delete(at);
    await take(images[at]!, objects);
  }
}
