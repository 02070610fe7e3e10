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
