// Near-duplicate detection on a generated corpus: 40 distinct pictures (shapes, gradients, noise
// textures, mixes) and, of each, 12 copies (resized 30–150 %, JPEG quality 40–95, cropped by up to 5 %,
// brightened or darkened by 10 %), hashed as the server hashes them (from the 256 px WebP thumbnail).
// At the default distance the groups the report would show hold each picture's copies (recall) and
// nothing else (precision), both at least 0.95, over every pair of images; and "similar images" of an
// original finds at least 0.95 of its own copies directly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { DEFAULT_DISTANCE, UnionFind, forEachNearPair, packHashes } from '../../src/services/hamming-pairs.ts';
import { renderPerceptualHashes } from '../../src/services/perceptual-hash-render.ts';
import { renderThumbnail } from '../../src/services/thumbnail-render.ts';
import { mapLimited } from '../../src/concurrency.ts';
import { TRANSFORMS, nearDuplicateCorpus } from '../helpers/near-duplicate-corpus.ts';

const DISTINCT = 40;

test(`precision and recall of near-duplicate groups at distance ${DEFAULT_DISTANCE} are at least 0.95`, { timeout: 300_000 }, async () => {
  const corpus = await nearDuplicateCorpus(DISTINCT);
  assert.equal(corpus.length, DISTINCT * (1 + TRANSFORMS.length));
  const hashes = await mapLimited(corpus, 2, async (image) => renderPerceptualHashes(sharp, (await renderThumbnail(sharp, image.bytes, 256, 100_000_000)).webp));
  const arrays = { phash: packHashes(hashes.map((h) => h.phash)), dhash: packHashes(hashes.map((h) => h.dhash)) };

  const sets = new UnionFind(corpus.length);
  const near = new Set<string>();
  forEachNearPair(arrays, DEFAULT_DISTANCE, (i, j) => {
    sets.union(i, j);
    near.add(`${i}-${j}`);
  });
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  let copies = 0;
  let copiesFound = 0;
  for (let i = 0; i < corpus.length; i += 1) {
    for (let j = i + 1; j < corpus.length; j += 1) {
      const grouped = sets.find(i) === sets.find(j);
      const same = corpus[i]!.source === corpus[j]!.source;
      if (grouped && same) truePositives += 1;
      else if (grouped) falsePositives += 1;
      else if (same) falseNegatives += 1;
      if (same && corpus[i]!.transform === 'original') {
        copies += 1;
        if (near.has(`${i}-${j}`)) copiesFound += 1;
      }
    }
  }
  const precision = truePositives / (truePositives + falsePositives);
  const recall = truePositives / (truePositives + falseNegatives);
  const direct = copiesFound / copies;
  console.log(`${corpus.length} images: group precision ${precision.toFixed(4)}, group recall ${recall.toFixed(4)}, copies near their original ${direct.toFixed(4)}`);
  assert.ok(precision >= 0.95, `precision ${precision}`);
  assert.ok(recall >= 0.95, `recall ${recall}`);
  assert.ok(direct >= 0.95, `copies near their original ${direct}`);
});
