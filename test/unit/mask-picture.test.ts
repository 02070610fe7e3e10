// The segment tool's mask picture (web/editor/mask-picture.ts): a PNG that a PNG reader (libpng,
// through sharp, which checks every chunk's CRC and the zlib stream's Adler-32) reads back as the
// mask, the colour inside and transparent outside, at sizes whose rows end mid-byte and whose data
// spans several stored blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { MASK_RGBA, maskPicture } from '../../web/editor/mask-picture.ts';

test('the mask picture reads back as the mask: its colour inside, transparent outside', async () => {
  for (const [width, height] of [[1024, 1024], [13, 7], [480, 360], [300, 1]] as const) {
    const mask = Uint8Array.from({ length: width * height }, (_, i) => ((i % width) ** 2 + Math.floor(i / width) ** 2 < (width * width) / 4 ? 1 : 0));
    const png = maskPicture(mask, width, height, MASK_RGBA);
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height], [width, height]);
    let wrong = 0;
    for (let i = 0; i < width * height; i++) {
      const pixel = [data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!, data[i * 4 + 3]!];
      if (mask[i] ? pixel.join() !== MASK_RGBA.join() : pixel[3] !== 0) wrong += 1;
    }
    assert.equal(wrong, 0, `${wrong} pixels wrong at ${width} × ${height}`);
  }
  // An eighth of a byte a pixel, and little more: 1024² in 128 KiB and its headers.
  assert.ok(maskPicture(new Uint8Array(1024 * 1024), 1024, 1024, MASK_RGBA).length < 1024 * 1024 / 8 + 1024 * 6);
});
