// The processing layers by action: the annotation layers written here, and the pixel layers, which
// plug in from ./pixels/index.ts. A pixel layer's classes pass through it unchanged.
import type { CanonicalObject, ClassShape } from '../../formats/canonical.ts';
import type { LayerFunction } from '../item.ts';
import { requireClasses } from '../classes.ts';
import type { Action } from '../config.ts';
import { approxVector } from './approx-vector.ts';
import { background } from './background.ts';
import { bbox } from './bbox.ts';
import { bbox2poly } from './bbox2poly.ts';
import { bitmap2lines } from './bitmap2lines.ts';
import { bitwiseMasks } from './bitwise-masks.ts';
import { colorClass } from './color-class.ts';
import { dataset } from './dataset.ts';
import { dropLinesByLength } from './drop-lines-by-length.ts';
import { dropNoise } from './drop-noise.ts';
import { dropObjByClass } from './drop-obj-by-class.ts';
import { dummy } from './dummy.ts';
import { duplicateObjects } from './duplicate-objects.ts';
import { findContours } from './find-contours.ts';
import { generateHints } from './generate-hints.ts';
import { ifLayer } from './if.ts';
import type { BranchLayer, ProcessingLayer } from './layer.ts';
import { line2bitmap } from './line2bitmap.ts';
import { mergeBitmapMasks } from './merge-bitmap-masks.ts';
import { multiply } from './multiply.ts';
import { objectsFilter } from './objects-filter.ts';
import { poly2bitmap } from './poly2bitmap.ts';
import { rasterize } from './rasterize.ts';
// The pixel layers: an empty record until they are written; each entry added there is a layer here.
import { pixelLayers } from './pixels/index.ts';
import { rename } from './rename.ts';
import { skeletonize } from './skeletonize.ts';
import { splitMasks } from './split-masks.ts';
import { tag } from './tag.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each layer has settings of its own
type AnyLayer = ProcessingLayer<any, any>;

const ANNOTATION_LAYERS: Partial<Record<Action, AnyLayer>> = {
  rename,
  drop_obj_by_class: dropObjByClass,
  duplicate_objects: duplicateObjects,
  bbox,
  bbox2poly,
  approx_vector: approxVector,
  poly2bitmap,
  rasterize,
  find_contours: findContours,
  split_masks: splitMasks,
  drop_noise: dropNoise,
  objects_filter: objectsFilter,
  background,
  tag,
  dataset,
  multiply,
  dummy,
  line2bitmap,
  skeletonize,
  bitmap2lines,
  color_class: colorClass,
  drop_lines_by_length: dropLinesByLength,
  merge_bitmap_masks: mergeBitmapMasks,
  bitwise_masks: bitwiseMasks,
  generate_hints: generateHints,
};

/** The processing layer of an action (not data, if, or an output); undefined when there is none (yet). */
export function processingLayer(action: string): AnyLayer | undefined {
  const own = ANNOTATION_LAYERS[action as Action];
  if (own) return own;
  const pixel = pixelLayers[action];
  return pixel && { plan: pixelPlan(action), run: shapedRun(pixel.run) };
}

/** What a pixel layer's plan hands its run: its settings, and the shape of each class at its input. */
interface PixelPrepared {
  settings: Record<string, unknown>;
  shapes: ReadonlyMap<string, ClassShape>;
}

/** Settings of pixel layers that name classes, which must be there at the layer's input. */
const PIXEL_CLASS_LISTS: Record<string, string[]> = { instances_crop: ['classes', 'save_classes'] };

/** A pixel layer's plan: its classes pass through; the classes its settings name must be there. */
function pixelPlan(action: string): AnyLayer['plan'] {
  return (settings: Record<string, unknown>, input) => {
    for (const key of PIXEL_CLASS_LISTS[action] ?? []) {
      const titles = settings[key];
      if (Array.isArray(titles)) requireClasses(input, titles as string[], `/${key}`);
    }
    const shapes = new Map(input.classes.map((c) => [c.title, c.shape]));
    return { output: input, prepared: { settings, shapes } satisfies PixelPrepared };
  };
}

/**
 * A pixel layer moves each object by its class's shape (a two-point line is not a rectangle), which
 * the canonical object does not carry: the shape goes on each object for the layer, and comes off
 * after it.
 */
function shapedRun(run: LayerFunction<unknown>): LayerFunction<PixelPrepared> {
  return async (item, { settings, shapes }, context) => {
    const objects = item.annotation.objects.map((o) => {
      const shape = shapes.get(o.classTitle);
      return shape ? { ...o, shape } : o;
    });
    const results = await run({ ...item, annotation: { ...item.annotation, objects } }, settings, context);
    return results.map((result) => ({
      ...result,
      annotation: { ...result.annotation, objects: result.annotation.objects.map(({ shape: _shape, ...o }: CanonicalObject & { shape?: ClassShape }) => o) },
    }));
  };
}

/** The pixel layer's own settings schema, when it is there. */
export const pixelSettings = (action: string) => pixelLayers[action]?.settings;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- its settings are checked by config.ts
export const branchLayer: BranchLayer<any, any> = ifLayer;
