// instances_crop: one item per object of the given classes, cut to the object's bounding box widened
// by the padding (left and right in pixels or percent of the box's width, top and bottom of its
// height). Each item keeps its target object and the objects of save_classes, cut to the crop; other
// objects are dropped. Items are named `<name>_<n>` (n from 1, in the annotation's order).
import { Type } from 'typebox';
import type { CanonicalObject } from '../../../formats/canonical.ts';
import { type Box, boundsOf } from '../../transform.ts';
import { type LayerFunction, withAnnotation } from '../../item.ts';
import { cropItem } from './crop.ts';
import { suffixedName } from './raw.ts';
import { type SideSettings, Sides, sideLength } from './sides.ts';
import { layerSettings } from './schema.ts';

/** One image gives at most this many items, so one crowded image cannot flood an export. */
export const MAX_INSTANCES_PER_IMAGE = 1000;

const ClassList = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 1000 });

export const instancesCropSettings = layerSettings({
  classes: ClassList,
  save_classes: Type.Optional(ClassList),
  pad: Type.Object({ sides: Sides }, { additionalProperties: false }),
});

export interface InstancesCropSettings {
  classes: string[];
  save_classes?: string[];
  pad: { sides: SideSettings };
}

/** The object's extent in image coordinates: its points, or its mask's pixels. */
export function objectBox(object: CanonicalObject): Box {
  if (object.bitmap) {
    const [x, y] = object.bitmap.origin;
    return { left: x, top: y, right: x + object.bitmap.width, bottom: y + object.bitmap.height };
  }
  return boundsOf(object.points.exterior);
}

/** The box widened by the padding and rounded outwards to whole pixels. */
export function paddedBox(box: Box, sides: SideSettings): Box {
  const width = box.right - box.left;
  const height = box.bottom - box.top;
  return {
    left: Math.floor(box.left - sideLength(sides.left, width)),
    top: Math.floor(box.top - sideLength(sides.top, height)),
    right: Math.ceil(box.right + sideLength(sides.right, width)),
    bottom: Math.ceil(box.bottom + sideLength(sides.bottom, height)),
  };
}

export const instancesCrop: LayerFunction<InstancesCropSettings> = async (item, settings) => {
  const targets = new Set(settings.classes);
  const kept = new Set(settings.save_classes ?? []);
  const items = [];
  let n = 0;
  for (const target of item.annotation.objects) {
    if (!targets.has(target.classTitle)) continue;
    if (++n > MAX_INSTANCES_PER_IMAGE) throw new Error(`instances_crop: more than ${MAX_INSTANCES_PER_IMAGE} objects to crop in one image`);
    const objects = item.annotation.objects.filter((o) => o === target || kept.has(o.classTitle));
    const one = withAnnotation({ ...item, name: suffixedName(item.name, n) }, { ...item.annotation, objects });
    items.push(...(await cropItem(one, paddedBox(objectBox(target), settings.pad.sides))));
  }
  return items;
};
