// A prediction as stored and answered: an object of a project class, with the model's score. The
// geometry is checked as an annotation's is (by the Supervisely reader, against the class's shape),
// so an accepted prediction can become an annotation object as it is.
import type { Point } from '../formats/canonical.ts';
import { type PathStep, pointerOf, readAnnotation } from './annotation-input.ts';
import type { ClassShape } from '../formats/canonical.ts';
import { validation } from '../errors.ts';

export interface PredictionObject {
  classId: number;
  classTitle: string;
  geometryType: ClassShape;
  bitmap: { origin: [number, number]; data: string } | null;
  points: { exterior: Point[]; interior: Point[][] };
  score: number;
}

/** A prediction as a client or a format reader gives it: a class by title or id. */
export interface PredictionInput {
  classTitle?: string;
  classId?: number;
  geometryType?: string;
  bitmap?: unknown;
  points?: unknown;
  score: number;
}

export interface ProjectClass {
  id: number;
  title: string;
  shape: string;
}

/**
 * Checks the predictions against the project's classes and the image's size; a problem is a 400 whose
 * pointer names the value under `base` (`/objects/3/points` in a request).
 */
export function readPredictions(
  inputs: readonly PredictionInput[],
  classes: readonly ProjectClass[],
  size: { width: number; height: number },
  base: PathStep[] = ['objects'],
): PredictionObject[] {
  inputs.forEach((input, i) => {
    if (typeof input.score !== 'number' || !(input.score >= 0 && input.score <= 1)) {
      throw validation(`${pointerOf([...base, i, 'score'])}: must be a number from 0 to 1`, { pointer: pointerOf([...base, i, 'score']) });
    }
  });
  const byId = new Map(classes.map((c) => [c.id, c]));
  const byTitle = new Map(classes.map((c) => [c.title, c]));
  const resolved = inputs.map((input, i) => {
    const found = input.classId !== undefined ? byId.get(input.classId) : input.classTitle !== undefined ? byTitle.get(input.classTitle) : undefined;
    if (!found) {
      const member = input.classId !== undefined ? 'classId' : 'classTitle';
      const what = input.classId ?? input.classTitle;
      throw validation(`${pointerOf([...base, i, member])}: ${what === undefined ? 'a class (classTitle or classId) is required' : `class ${JSON.stringify(what)} is not in the project`}`, {
        pointer: pointerOf([...base, i, member]),
      });
    }
    if (input.classId !== undefined && input.classTitle !== undefined && input.classTitle !== found.title) {
      throw validation(`${pointerOf([...base, i, 'classTitle'])}: class ${input.classId} is "${found.title}"`, { pointer: pointerOf([...base, i, 'classTitle']) });
    }
    return found;
  });
  const shapes = new Map(classes.map((c) => [c.title, c.shape as ClassShape]));
  const annotation = readAnnotation(
    {
      size,
      objects: inputs.map((input, i) => ({
        classTitle: resolved[i]!.title,
        ...(input.geometryType !== undefined ? { geometryType: input.geometryType } : {}),
        ...(input.bitmap !== undefined ? { bitmap: input.bitmap } : {}),
        ...(input.points !== undefined ? { points: input.points } : {}),
      })),
    },
    shapes,
    (steps) => pointerOf(steps[0] === 'objects' ? [...base, ...steps.slice(1)] : steps),
  );
  return annotation.objects.map((o, i) => ({
    classId: resolved[i]!.id,
    classTitle: resolved[i]!.title,
    geometryType: resolved[i]!.shape as ClassShape,
    bitmap: o.bitmap ? { origin: o.bitmap.origin, data: o.bitmap.data } : null,
    points: { exterior: o.points.exterior, interior: o.points.interior },
    score: inputs[i]!.score,
  }));
}
