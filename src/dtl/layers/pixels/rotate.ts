// rotate: turns the image and its annotation about the image's centre, counter-clockwise, by an angle
// drawn from rotate_angles. The canvas grows to hold the whole turned image, its new corners black
// (black_regions.mode `keep`); `crop` keeps the largest upright rectangle with no black in it;
// `preserve_size` keeps the original size about the centre. Rectangles become the bounding boxes of
// their turned corners, as the 2018 DTL's did.
import { Type } from 'typebox';
import { type Affine, compose, rotation, transformAnnotation, translation } from '../../transform.ts';
import { type LayerFunction, type RawImage, withPixels } from '../../item.ts';
import { BLACK, fromRaw, toRaw, uniform } from './raw.ts';
import { layerSettings } from './schema.ts';

const Degrees = Type.Number({ minimum: -360, maximum: 360 });

export const rotateSettings = layerSettings({
    rotate_angles: Type.Object({ min_degrees: Degrees, max_degrees: Degrees }, { additionalProperties: false }),
    black_regions: Type.Object(
      { mode: Type.Union([Type.Literal('keep'), Type.Literal('crop'), Type.Literal('preserve_size')]) },
      { additionalProperties: false },
    ),
});

export interface RotateSettings {
  rotate_angles: { min_degrees: number; max_degrees: number };
  black_regions: { mode: 'keep' | 'crop' | 'preserve_size' };
}

/**
 * The largest upright rectangle inside a `width`×`height` rectangle turned by `degrees` (the known
 * closed form: touching two sides when the short side is small, else all four).
 */
export function innerRectangle(width: number, height: number, degrees: number): { width: number; height: number } {
  const radians = (degrees * Math.PI) / 180;
  const sin = Math.abs(Math.sin(radians));
  const cos = Math.abs(Math.cos(radians));
  const widthIsLonger = width >= height;
  const long = widthIsLonger ? width : height;
  const short = widthIsLonger ? height : width;
  if (short <= 2 * sin * cos * long || Math.abs(sin - cos) < 1e-10) {
    const half = short / 2;
    return widthIsLonger ? { width: half / sin, height: half / cos } : { width: half / cos, height: half / sin };
  }
  const cos2 = cos * cos - sin * sin;
  return { width: (width * cos - height * sin) / cos2, height: (height * cos - width * sin) / cos2 };
}

export const rotate: LayerFunction<RotateSettings> = async (item, settings, context) => {
  const { min_degrees, max_degrees } = settings.rotate_angles;
  const degrees = uniform(() => context.random(), min_degrees, max_degrees, 'rotate: rotate_angles');
  const raw = await item.image.raw();
  // sharp turns clockwise; the canvas it makes holds the whole turned image, centred.
  let turned = await toRaw((await fromRaw(raw)).rotate(-degrees, { background: BLACK }));
  let m: Affine = compose(translation(turned.width / 2, turned.height / 2), compose(rotation(degrees), translation(-raw.width / 2, -raw.height / 2)));
  const mode = settings.black_regions.mode;
  if (mode !== 'keep') {
    const want = mode === 'crop' ? innerRectangle(raw.width, raw.height, degrees) : { width: raw.width, height: raw.height };
    const cut = await cutAboutCentre(turned, want);
    if (!cut) return [];
    turned = cut.raw;
    m = compose(translation(cut.dx, cut.dy), m);
  }
  return [withPixels(item, turned, await transformAnnotation(item.annotation, m, turned))];
};

/**
 * The part of `raw` of the wanted size about its centre, in whole pixels: a crop inside, or black
 * added round it when the wanted size is larger (a quarter turn of an oblong image, preserve_size).
 * `dx`, `dy` move the old coordinates to the new.
 */
async function cutAboutCentre(raw: RawImage, want: { width: number; height: number }): Promise<{ raw: RawImage; dx: number; dy: number } | null> {
  const width = Math.floor(want.width + 1e-6);
  const height = Math.floor(want.height + 1e-6);
  if (width <= 0 || height <= 0) return null;
  const padX = Math.max(0, Math.ceil((width - raw.width) / 2));
  const padY = Math.max(0, Math.ceil((height - raw.height) / 2));
  let pipeline = await fromRaw(raw);
  if (padX > 0 || padY > 0) {
    pipeline = await fromRaw(await toRaw(pipeline.extend({ left: padX, right: padX, top: padY, bottom: padY, background: BLACK })));
  }
  const left = Math.round((raw.width + 2 * padX - width) / 2);
  const top = Math.round((raw.height + 2 * padY - height) / 2);
  const cut = await toRaw(pipeline.extract({ left, top, width, height }));
  return { raw: cut, dx: padX - left, dy: padY - top };
}
