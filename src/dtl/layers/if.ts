// if: each item goes to the first destination when the condition holds, to the second when not.
import { stemOf } from '../../formats/archive-names.ts';
import type { ClassShape } from '../../formats/canonical.ts';
import { ClassError, requireClasses } from '../classes.ts';
import { objectArea } from '../geometry.ts';
import type { DtlItem } from '../item.ts';
import { type BranchLayer, shapesOf } from './layer.ts';

export type Condition =
  | { probability: number }
  | { regex_names: string[] }
  | { project_datasets: string[] }
  | { min_objects_count: number }
  | { include_classes: string[] }
  | { tags: string[] }
  | { min_height: number }
  | { min_width: number }
  | { min_area: number }
  | { sum_object_area: number; classes: string[] };

type Test = (item: DtlItem, random: () => number) => boolean | Promise<boolean>;

/** The condition as a test of an item; a pattern that is no regular expression throws. */
function compile(condition: Condition, shapes: ReadonlyMap<string, ClassShape>): Test {
  if ('probability' in condition) return (_item, random) => random() < condition.probability;
  if ('regex_names' in condition) {
    // Matched against the name without its extension: the 2018 engine's image names had none, and
    // its published patterns end with `$` (`^austin[0-9]+$`).
    const patterns = condition.regex_names.map((p) => new RegExp(p));
    return (item) => patterns.some((p) => p.test(stemOf(item.name)));
  }
  if ('project_datasets' in condition) {
    const pairs = condition.project_datasets.map((pd) => pd.split('/') as [string, string]);
    return (item) => pairs.some(([p, d]) => p === item.source.project && (d === '*' || d === item.source.dataset));
  }
  if ('min_objects_count' in condition) return (item) => item.annotation.objects.length >= condition.min_objects_count;
  if ('include_classes' in condition) {
    const classes = new Set(condition.include_classes);
    return (item) => item.annotation.objects.some((o) => classes.has(o.classTitle));
  }
  if ('tags' in condition) {
    const tags = new Set(condition.tags);
    return (item) => item.annotation.tags.some((t) => tags.has(t.name));
  }
  if ('min_height' in condition) return (item) => item.annotation.size.height >= condition.min_height;
  if ('min_width' in condition) return (item) => item.annotation.size.width >= condition.min_width;
  if ('sum_object_area' in condition) {
    // The area the objects of the classes cover together, each counted whole (objects that overlap count twice).
    const classes = new Set(condition.classes);
    return async (item) => {
      let sum = 0;
      for (const o of item.annotation.objects) if (classes.has(o.classTitle)) sum += await objectArea(o, shapes.get(o.classTitle)!);
      return sum >= condition.sum_object_area;
    };
  }
  return (item) => item.annotation.size.width * item.annotation.size.height >= condition.min_area;
}

export const ifLayer: BranchLayer<{ condition: Condition }, Test> = {
  plan(settings, input) {
    if ('include_classes' in settings.condition) requireClasses(input, settings.condition.include_classes, '/condition/include_classes');
    if ('sum_object_area' in settings.condition) requireClasses(input, settings.condition.classes, '/condition/classes');
    if ('regex_names' in settings.condition) {
      settings.condition.regex_names.forEach((pattern, i) => {
        try {
          new RegExp(pattern);
        } catch {
          throw new ClassError(`"${pattern}" is not a regular expression`, `/condition/regex_names/${i}`);
        }
      });
    }
    return { output: input, prepared: compile(settings.condition, shapesOf(input)) };
  },
  route(item, test, context) {
    // Only sum_object_area waits (for bitmaps to decode); the other conditions answer at once.
    const holds = test(item, context.random);
    return holds instanceof Promise ? holds.then((h) => (h ? 0 : 1)) : holds ? 0 : 1;
  },
};
