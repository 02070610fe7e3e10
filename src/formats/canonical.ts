// The canonical annotation model every format reads into and writes from.

export const CLASS_SHAPES = ['point', 'rectangle', 'line', 'polygon', 'bitmap'] as const;
export type ClassShape = (typeof CLASS_SHAPES)[number];

export const isClassShape = (value: unknown): value is ClassShape =>
  typeof value === 'string' && (CLASS_SHAPES as readonly string[]).includes(value);

export type Point = [number, number];

/** One object of an annotation, as the v1 record shows it. */
export interface AnnotationObject {
  classTitle: string;
  description: string;
  tags: string[];
  bitmap: { origin: [number, number]; data: string } | null;
  points: { exterior: Point[]; interior: Point[][] };
}

/**
 * Serialises objects in the exact member order of the v1 annotation record, so the stored text can be
 * sent as it is.
 */
export function serializeObjects(objects: readonly AnnotationObject[]): string {
  return JSON.stringify(
    objects.map((o) => ({
      classTitle: o.classTitle,
      description: o.description,
      tags: o.tags,
      bitmap: o.bitmap ? { origin: o.bitmap.origin, data: o.bitmap.data } : null,
      points: { exterior: o.points.exterior, interior: o.points.interior },
    })),
  );
}

export const TAG_SCOPES = ['images', 'figures'] as const;
export type TagScope = (typeof TAG_SCOPES)[number];

export const TAG_VALUE_TYPES = ['none', 'any_number', 'any_string', 'oneof_string'] as const;
export type TagValueType = (typeof TAG_VALUE_TYPES)[number];

/** A tag's value as annotation files carry it; null for a tag without one. */
export type TagValue = null | number | string;

export interface CanonicalTag {
  name: string;
  value: TagValue;
}

/** A class of a project, as read from a format's class list. */
export interface ClassDefinition {
  title: string;
  shape: ClassShape;
  color: string;
}

/** A project tag; a tag that applies to both images and objects appears once per scope. */
export interface TagDefinition {
  title: string;
  scope: TagScope;
  valueType: TagValueType;
  /** The allowed values of a `oneof_string` tag, when the source lists them. */
  values?: string[];
}

/** A bitmap mask, with the size of the PNG its data decodes to. */
export interface CanonicalBitmap {
  origin: [number, number];
  data: string;
  width: number;
  height: number;
}

/** One object as a format reader returns it: like AnnotationObject, but tags keep their values. */
export interface CanonicalObject {
  classTitle: string;
  description: string;
  tags: CanonicalTag[];
  bitmap: CanonicalBitmap | null;
  points: { exterior: Point[]; interior: Point[][] };
}

export interface CanonicalAnnotation {
  description: string;
  tags: CanonicalTag[];
  size: { width: number; height: number };
  objects: CanonicalObject[];
}

/**
 * The v1 record view of an object: tags become plain titles, as the contract answers them (and as
 * the 2018 Supervisely layout writes them).
 */
export const toAnnotationObject = (o: Omit<CanonicalObject, 'bitmap'> & { bitmap: { origin: [number, number]; data: string } | null }): AnnotationObject => ({
  classTitle: o.classTitle,
  description: o.description,
  tags: o.tags.map((t) => t.name),
  bitmap: o.bitmap ? { origin: o.bitmap.origin, data: o.bitmap.data } : null,
  points: o.points,
});

/** A problem a format reader worked around (a skipped object, a missing file); `line` is 1-based. */
export interface FormatWarning {
  path: string;
  line?: number;
  message: string;
}

/** A read object with the shape of its geometry, before classes are settled. */
export interface ShapedObject extends CanonicalObject {
  shape: ClassShape;
}

/** When one source label carries several shapes, the class of its main shape keeps the label. */
const SHAPE_PRIORITY: ClassShape[] = ['polygon', 'bitmap', 'rectangle', 'line', 'point'];

/**
 * Settles the classes of objects read from a format whose labels have no shape of their own (COCO,
 * Pascal VOC, YOLO). Each label becomes a class of its main shape (polygon, else bitmap, else
 * rectangle…); a rectangle under a polygon label becomes the same box as a 4-point polygon; any other
 * object of another shape moves to the class `<label> (<shape>)`. `priority` orders the shapes. Labels no object uses become
 * classes of `unusedShape`. Objects are updated in place; answers the classes in first-seen order.
 */
export function settleClasses(
  objects: Iterable<ShapedObject>,
  labels: readonly string[],
  color: (title: string) => string,
  unusedShape: ClassShape = 'rectangle',
  priority: readonly ClassShape[] = SHAPE_PRIORITY,
): ClassDefinition[] {
  const all = [...objects];
  const shapesOf = new Map<string, Set<ClassShape>>();
  for (const o of all) {
    let shapes = shapesOf.get(o.classTitle);
    if (!shapes) shapesOf.set(o.classTitle, (shapes = new Set()));
    shapes.add(o.shape);
  }
  const settlement = settleClassShapes(shapesOf, labels, color, unusedShape, priority);
  for (const o of all) settlement.settle(o);
  return settlement.classes;
}

export interface ClassSettlement {
  classes: ClassDefinition[];
  /** Moves one object to its class (as settleClasses does), in place. */
  settle(o: ShapedObject): void;
}

/**
 * settleClasses from the shapes each label's objects have, for a reader that hands the objects over
 * one image at a time: the classes are known before the first object is settled.
 */
export function settleClassShapes(
  shapesOf: ReadonlyMap<string, ReadonlySet<ClassShape>>,
  labels: readonly string[],
  color: (title: string) => string,
  unusedShape: ClassShape = 'rectangle',
  priority: readonly ClassShape[] = SHAPE_PRIORITY,
): ClassSettlement {
  const all = new Map<string, ReadonlySet<ClassShape>>(labels.map((l) => [l, shapesOf.get(l) ?? new Set()]));
  for (const [label, shapes] of shapesOf) if (!all.has(label)) all.set(label, shapes);
  const main = new Map<string, ClassShape>();
  for (const [label, shapes] of all) main.set(label, priority.find((s) => shapes.has(s)) ?? unusedShape);
  const extra = new Map<string, ClassShape>();
  for (const [label, shapes] of all) {
    const shape = main.get(label)!;
    for (const s of shapes) if (s !== shape && !(s === 'rectangle' && shape === 'polygon')) extra.set(`${label} (${s})`, s);
  }
  const classes: ClassDefinition[] = [];
  for (const [title, shape] of main) {
    classes.push({ title, shape, color: color(title) });
    for (const s of SHAPE_PRIORITY) {
      const sibling = `${title} (${s})`;
      if (extra.get(sibling) === s && !main.has(sibling)) classes.push({ title: sibling, shape: s, color: color(sibling) });
    }
  }
  const settle = (o: ShapedObject) => {
    const shape = main.get(o.classTitle)!;
    if (o.shape === shape) return;
    if (o.shape === 'rectangle' && shape === 'polygon') {
      const [[l, t], [r, b]] = o.points.exterior as [Point, Point];
      o.points = { exterior: [[l, t], [r, t], [r, b], [l, b]], interior: [] };
      o.shape = 'polygon';
      return;
    }
    o.classTitle = `${o.classTitle} (${o.shape})`;
  };
  return { classes, settle };
}
