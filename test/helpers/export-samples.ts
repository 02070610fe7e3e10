// A small project for the format writers: every shape (a polygon with a hole, a bitmap of two pieces
// with a hole of its own), tags with and without values, two datasets, and two images of one dataset
// whose names share a stem (a.jpg, a.png). The objects of an image do not overlap, so a mask of all of
// them keeps each one whole.
import { maskToBitmap } from '../../src/formats/coco/mask.ts';
import type { Point } from '../../src/formats/canonical.ts';
import type { ExportObject, ExportProject, ExportRecord } from '../../src/formats/writer.ts';
import { generatedImage } from './fixture-copy.ts';

export const SAMPLE_PROJECT: ExportProject = {
  title: 'sample',
  classes: [
    { title: 'person', shape: 'polygon', color: '#FF0000' },
    { title: 'car', shape: 'rectangle', color: '#00FF00' },
    { title: 'road', shape: 'line', color: '#0000FF' },
    { title: 'sign', shape: 'point', color: '#FFFF00' },
    { title: 'lake', shape: 'polygon', color: '#00FFFF' },
    { title: 'stain', shape: 'bitmap', color: '#FF00FF' },
  ],
  tags: [
    { title: 'daytime', scope: 'images', valueType: 'none' },
    { title: 'weather', scope: 'images', valueType: 'any_string' },
    { title: 'occluded', scope: 'figures', valueType: 'none' },
    { title: 'score', scope: 'figures', valueType: 'any_number' },
  ],
};

/** The bitmap's pixels: an 8×8 square with a 2×2 hole, and apart from it a 3×3 square. */
export const STAIN_ORIGIN: [number, number] = [4, 30];
export const STAIN_PIXELS: Point[] = (() => {
  const pixels: Point[] = [];
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) if (!(x >= 3 && x < 5 && y >= 3 && y < 5)) pixels.push([x, y]);
  for (let y = 10; y < 13; y++) for (let x = 12; x < 15; x++) pixels.push([x, y]);
  return pixels;
})();

function stainBitmap(): { origin: [number, number]; data: string } {
  const width = 15;
  const pixels = new Uint8Array(width * 13);
  for (const [x, y] of STAIN_PIXELS) pixels[y * width + x] = 1;
  const bitmap = maskToBitmap({ width, height: 13, pixels })!;
  return { origin: [STAIN_ORIGIN[0] + bitmap.origin[0], STAIN_ORIGIN[1] + bitmap.origin[1]], data: bitmap.data };
}

const object = (classTitle: string, exterior: Point[], more: Partial<ExportObject> = {}): ExportObject => ({
  classTitle,
  description: '',
  tags: [],
  bitmap: null,
  points: { exterior, interior: [] },
  ...more,
});

export function sampleRecords(): ExportRecord[] {
  return [
    {
      dataset: 'train',
      name: 'a.jpg',
      width: 64,
      height: 48,
      hash: 'sample-a-jpg',
      description: 'first',
      tags: [
        { name: 'daytime', value: null },
        { name: 'weather', value: 'sunny' },
      ],
      objects: [
        object('person', [[4, 4], [28, 6], [16, 26]], {
          description: 'left one',
          tags: [
            { name: 'occluded', value: null },
            { name: 'score', value: 0.5 },
          ],
        }),
        object('car', [[34, 4], [60, 18]]),
        object('road', [[2, 46], [30, 47]]),
        object('sign', [[31.5, 2.5]]),
        object('lake', [[34, 22], [62, 24], [60, 46], [36, 44]], { points: { exterior: [[34, 22], [62, 24], [60, 46], [36, 44]], interior: [[[42, 30], [52, 30], [52, 38], [42, 38]]] } }),
        object('stain', [], { bitmap: stainBitmap() }),
      ],
    },
    {
      dataset: 'train',
      name: 'a.png',
      width: 40,
      height: 30,
      hash: 'sample-a-png',
      description: '',
      tags: [],
      objects: [object('car', [[2.5, 3.25], [20.75, 14]]), object('person', [[22, 2], [38, 4], [36, 28], [24, 20.5]])],
    },
    {
      dataset: 'val',
      name: 'c.jpg',
      width: 50,
      height: 40,
      hash: 'sample-c-jpg',
      description: '',
      tags: [{ name: 'weather', value: 'rain' }],
      objects: [object('car', [[0, 0], [50, 40]], { tags: [{ name: 'score', value: 3 }] })],
    },
    { dataset: 'val', name: 'empty.jpg', width: 20, height: 20, hash: 'sample-empty-jpg', description: '', tags: [], objects: [] },
  ];
}

/** Real image bytes for a sample record's hash, of the record's size and format. */
export function sampleImages(records: readonly ExportRecord[]): (hash: string) => Promise<Buffer> {
  const byHash = new Map(records.map((r, i) => [r.hash, { r, i }]));
  return async (hash) => {
    const found = byHash.get(hash);
    if (!found) throw new Error(`no sample image has hash ${hash}`);
    return generatedImage(found.r.name, found.r.width, found.r.height, found.i + 1);
  };
}
