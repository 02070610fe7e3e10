// Reads a COCO instances file (already parsed) into per-image canonical objects.
//
// The index of categories and images by id is filled first (image-index.ts); each annotation is then
// placed (its image and label looked up) and converted on its own, so a streaming reader can use the
// same pieces.
import type { CanonicalTag, FormatWarning, Point, ShapedObject } from '../canonical.ts';
import { CocoFormatError } from './errors.ts';
import { type CocoImage, type CocoIndex, addCategory, addImage, cocoSubset, isId, isNumber, isRecord, newCocoIndex } from './image-index.ts';
import { decodeRle, maskToBitmap } from './mask.ts';

export interface CocoFile {
  path: string;
  /** The dataset name: `instances_val.json` → `val`, `train.json` → `train`. */
  subset: string;
  /** Category names in file order, once each. */
  labels: string[];
  images: CocoImage[];
  warnings: FormatWarning[];
}

/**
 * Converts a parsed COCO instances document. Throws CocoFormatError when the document is not a COCO
 * dataset (a results list, no `images`); an annotation that cannot be read is left out with a warning.
 */
export function readCocoFile(json: unknown, path: string): CocoFile {
  if (Array.isArray(json)) {
    throw new CocoFormatError(path, '', 'this is a COCO results list (a top-level array of detections), not a dataset with images and categories; import the ground-truth file instead');
  }
  if (!isRecord(json)) throw new CocoFormatError(path, '', 'a COCO file must be a JSON object with images, annotations and categories');
  if (!Array.isArray(json.images)) throw new CocoFormatError(path, 'images', 'must be an array');
  const rawAnnotations = json.annotations ?? [];
  if (!Array.isArray(rawAnnotations)) throw new CocoFormatError(path, 'annotations', 'must be an array');
  const rawCategories = json.categories ?? [];
  if (!Array.isArray(rawCategories)) throw new CocoFormatError(path, 'categories', 'must be an array');

  const warnings: FormatWarning[] = [];
  const warn = (message: string) => warnings.push({ path, message });
  const index = newCocoIndex();
  rawCategories.forEach((c: unknown, i) => addCategory(index, c, i, warn));
  json.images.forEach((im: unknown, i) => addImage(index, im, i, warn));
  rawAnnotations.forEach((a: unknown, i) => {
    const placed = placeAnnotation(index, a, i);
    if ('warning' in placed) return warn(placed.warning);
    placed.image.objects.push(...convertAnnotation(placed, warn));
  });
  return { path, subset: cocoSubset(path), labels: index.labels, images: [...index.images.values()], warnings };
}

export interface PlacedAnnotation {
  annotation: Record<string, unknown>;
  image: CocoImage;
  label: string;
  /** How warnings name it: `annotations[i] (id N)`. */
  name: string;
}

/** The image and label `annotations[i]` belongs to, or why it belongs nowhere. */
export function placeAnnotation(index: CocoIndex, a: unknown, i: number): PlacedAnnotation | { warning: string } {
  const at = `annotations[${i}]`;
  if (!isRecord(a)) return { warning: `${at} is not an object; it is ignored` };
  const name = isId(a.id) ? `${at} (id ${a.id})` : at;
  const image = isId(a.image_id) ? index.images.get(String(a.image_id)) : undefined;
  if (!image) return { warning: `${name}: image_id ${JSON.stringify(a.image_id)} is not in images; it is ignored` };
  const label = isId(a.category_id) ? index.categories.get(String(a.category_id)) : undefined;
  if (label === undefined) return { warning: `${name}: category_id ${JSON.stringify(a.category_id)} is not in categories; it is ignored` };
  return { annotation: a, image, label, name };
}

/** The objects of a placed annotation; one that cannot be read gives none, with a warning. */
export function convertAnnotation(placed: PlacedAnnotation, warn: (message: string) => void): ShapedObject[] {
  try {
    return readAnnotation(placed.annotation, placed.label, placed.image, (m) => warn(`${placed.name}: ${m}`));
  } catch (error) {
    warn(`${placed.name}: ${(error as Error).message}; it is ignored`);
    return [];
  }
}

function readAnnotation(a: Record<string, unknown>, label: string, image: CocoImage, warn: (m: string) => void): ShapedObject[] {
  const tags = readTags(a);
  const object = (shape: ShapedObject['shape'], exterior: Point[]): ShapedObject => ({
    classTitle: label,
    description: '',
    tags: tags.map((t) => ({ ...t })),
    bitmap: null,
    points: { exterior, interior: [] },
    shape,
  });
  const seg = a.segmentation;
  // Several polygon parts become several polygon objects of the same label: COCO's parts are
  // separate pieces (an occluded object seen in two places), not holes.
  if (Array.isArray(seg) && seg.length > 0) {
    const objects: ShapedObject[] = [];
    seg.forEach((part: unknown, k) => {
      if (!Array.isArray(part) || part.length < 6 || part.length % 2 !== 0 || !part.every(isNumber)) {
        warn(`segmentation[${k}] is not a polygon of at least 3 [x, y] pairs; that part is ignored`);
        return;
      }
      const ring: Point[] = [];
      for (let j = 0; j < part.length; j += 2) ring.push([part[j] as number, part[j + 1] as number]);
      objects.push(object('polygon', ring));
    });
    if (objects.length > 0) return objects;
  } else if (isRecord(seg)) {
    const size = seg.size;
    const [h, w] = Array.isArray(size) && size.length === 2 ? (size as number[]) : [image.height ?? 0, image.width ?? 0];
    const counts = seg.counts;
    if (typeof counts !== 'string' && !(Array.isArray(counts) && counts.every(isNumber))) {
      throw new Error('segmentation.counts must be a list of run lengths or a compressed RLE string');
    }
    const bitmap = maskToBitmap(decodeRle(counts as number[] | string, h as number, w as number));
    if (!bitmap) throw new Error('the RLE mask is empty');
    return [{ ...object('bitmap', []), bitmap }];
  }
  const box = a.bbox;
  if (Array.isArray(box) && box.length === 4 && box.every(isNumber)) {
    const [x, y, bw, bh] = box as number[];
    return [object('rectangle', [[x!, y!], [x! + bw!, y! + bh!]])];
  }
  throw new Error('it has neither a usable segmentation nor a bbox');
}

/** `iscrowd: 1` becomes the tag `iscrowd`; a non-standard `attributes` object becomes tags with values. */
function readTags(a: Record<string, unknown>): CanonicalTag[] {
  const tags: CanonicalTag[] = [];
  if (a.iscrowd === 1 || a.iscrowd === true) tags.push({ name: 'iscrowd', value: null });
  if (isRecord(a.attributes)) {
    for (const [name, value] of Object.entries(a.attributes)) {
      if (name === '' || name === 'iscrowd') continue;
      if (typeof value === 'string' || isNumber(value)) tags.push({ name, value });
      else if (typeof value === 'boolean') tags.push({ name, value: String(value) });
    }
  }
  return tags;
}
