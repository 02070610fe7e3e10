// The `visualize` overlay of the save layer: the image with each object drawn over it in its class's
// colour at half opacity, in the objects' order (later ones on top), as a PNG.
import type { ClassDefinition } from '../formats/canonical.ts';
import { newRaster, paintObject } from '../formats/raster.ts';
import { colorValue } from '../formats/writer.ts';
import { loadSharp } from '../sharp.ts';
import type { DtlItem } from './item.ts';

export async function overlay(item: DtlItem, classes: ReadonlyMap<string, ClassDefinition>): Promise<Buffer> {
  const raw = await item.image.raw();
  const { width, height, channels } = raw;
  const out = Buffer.alloc(width * height * 3);
  for (let p = 0, q = 0; p < out.length; p += 3, q += channels) {
    out[p] = raw.data[q]!;
    out[p + 1] = raw.data[q + 1]!;
    out[p + 2] = raw.data[q + 2]!;
  }
  for (const object of item.annotation.objects) {
    const definition = classes.get(object.classTitle);
    if (!definition) continue;
    const mask = newRaster(width, height);
    await paintObject(mask, definition.shape, object, 1);
    const color = colorValue(definition.color);
    const rgb = [(color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff];
    for (let i = 0; i < mask.pixels.length; i++) {
      if (!mask.pixels[i]) continue;
      for (let c = 0; c < 3; c++) out[i * 3 + c] = (out[i * 3 + c]! + rgb[c]!) >> 1;
    }
  }
  const sharp = await loadSharp();
  return sharp(out, { raw: { width, height, channels: 3 } }).png().toBuffer();
}
