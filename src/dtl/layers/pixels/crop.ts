// crop: keeps a part of the image, given by what to cut from each side (pixels or percent) or chosen
// at random (random_part: a height and width in percent of the image's, drawn from their ranges, at a
// random place). Objects are cut to the part; those outside it are dropped. A crop that leaves nothing
// drops the item, as in the 2018 DTL.
import { Type } from 'typebox';
import { type Box, transformAnnotation, translation } from '../../transform.ts';
import { type DtlItem, type LayerFunction, withPixels } from '../../item.ts';
import { fromRaw, toRaw, uniform } from './raw.ts';
import { type SideSettings, Sides, sideLength } from './sides.ts';
import { layerSettings } from './schema.ts';

const Percent = Type.Number({ minimum: 0, maximum: 100 });
const PercentRange = Type.Object({ min_percent: Percent, max_percent: Percent }, { additionalProperties: false });

export const cropSettings = Type.Union([
  layerSettings({ sides: Sides }),
  layerSettings({
    random_part: Type.Object(
      { height: PercentRange, width: PercentRange, keep_aspect_ratio: Type.Optional(Type.Boolean({ default: false })) },
      { additionalProperties: false },
    ),
  }),
]);

interface PercentRangeSettings {
  min_percent: number;
  max_percent: number;
}

export type CropSettings =
  | { sides: SideSettings }
  | { random_part: { height: PercentRangeSettings; width: PercentRangeSettings; keep_aspect_ratio?: boolean } };

/** The part of an image of `width`×`height` the sides leave, in whole pixels. */
export function sidesBox(sides: SideSettings, width: number, height: number): Box {
  return {
    left: sideLength(sides.left, width),
    top: sideLength(sides.top, height),
    right: width - sideLength(sides.right, width),
    bottom: height - sideLength(sides.bottom, height),
  };
}

function randomBox(settings: Extract<CropSettings, { random_part: unknown }>['random_part'], width: number, height: number, random: () => number): Box {
  const heightPercent = uniform(random, settings.height.min_percent, settings.height.max_percent, 'crop: random_part.height');
  const widthPercent = settings.keep_aspect_ratio ? heightPercent : uniform(random, settings.width.min_percent, settings.width.max_percent, 'crop: random_part.width');
  const h = Math.max(1, Math.min(height, Math.round((height * heightPercent) / 100)));
  const w = Math.max(1, Math.min(width, Math.round((width * widthPercent) / 100)));
  const top = Math.floor(random() * (height - h + 1));
  const left = Math.floor(random() * (width - w + 1));
  return { left, top, right: left + w, bottom: top + h };
}

/** The item cut to a box of whole pixels inside its image; none when the box is empty. */
export async function cropItem(item: DtlItem, box: Box): Promise<DtlItem[]> {
  const size = item.annotation.size;
  const left = Math.max(0, box.left);
  const top = Math.max(0, box.top);
  const width = Math.min(size.width, box.right) - left;
  const height = Math.min(size.height, box.bottom) - top;
  if (width <= 0 || height <= 0) return [];
  // A crop of the whole image changes nothing: the item keeps its stored bytes, copied, not encoded.
  if (left === 0 && top === 0 && width === size.width && height === size.height) return [item];
  const raw = await item.image.raw();
  const cropped = await toRaw((await fromRaw(raw)).extract({ left, top, width, height }));
  return [withPixels(item, cropped, await transformAnnotation(item.annotation, translation(-left, -top), cropped))];
}

export const crop: LayerFunction<CropSettings> = async (item, settings, context) => {
  const { width, height } = item.annotation.size;
  const box = 'sides' in settings ? sidesBox(settings.sides, width, height) : randomBox(settings.random_part, width, height, () => context.random());
  return cropItem(item, box);
};
