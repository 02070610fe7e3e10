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

/** The v1 record view of a read object: tags become plain titles, as the contract answers them. */
export const toAnnotationObject = (o: CanonicalObject): AnnotationObject => ({
  classTitle: o.classTitle,
  description: o.description,
  tags: o.tags.map((t) => t.name),
  bitmap: o.bitmap ? { origin: o.bitmap.origin, data: o.bitmap.data } : null,
  points: o.points,
});
