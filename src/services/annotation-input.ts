// An annotation a client sends, checked the way an import checks an annotation file: by the
// Supervisely reader, against the project's classes. What the reader refuses becomes a 400 whose
// pointer names the offending value in the request.
import { validation } from '../errors.ts';
import type { CanonicalAnnotation, ClassShape } from '../formats/canonical.ts';
import { type ProjectMeta, SuperviselyFormatError, parseAnnotation } from '../formats/supervisely/index.ts';

/** A step of a reader's path: a member name or an array index. */
export type PathStep = string | number;

/** The steps of a reader's path: `objects[3].points.exterior[0]` → objects, 3, points, exterior, 0. */
export function stepsOf(path: string): PathStep[] {
  const steps: PathStep[] = [];
  for (const part of path.split('.')) {
    if (part === '') continue;
    const [name, ...indexes] = part.split('[');
    if (name) steps.push(name);
    for (const index of indexes) steps.push(Number(index.slice(0, -1)));
  }
  return steps;
}

/** RFC 6901: a JSON pointer to the value the steps lead to. */
export const pointerOf = (steps: readonly PathStep[]): string =>
  steps.map((step) => `/${String(step).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** A 400 naming the value at `pointer`. */
export const invalidAt = (pointer: string, reason: string) => validation(`${pointer || '/'}: ${reason}`, { pointer });

/**
 * Reads `json` as a Supervisely annotation of a project with these classes. The reader's path of a
 * problem becomes a pointer through `locate` (by default the same path in the request).
 */
export function readAnnotation(
  json: unknown,
  classes: ReadonlyMap<string, ClassShape>,
  locate: (steps: PathStep[]) => string = pointerOf,
): CanonicalAnnotation {
  const meta: ProjectMeta = { classes: [...classes].map(([title, shape]) => ({ title, shape, color: '' })), tags: [], unsupported: [] };
  try {
    return parseAnnotation(json, meta).annotation;
  } catch (error) {
    if (error instanceof SuperviselyFormatError) throw invalidAt(locate(stepsOf(error.path)), error.reason);
    throw error;
  }
}
