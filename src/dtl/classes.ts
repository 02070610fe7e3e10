// The classes and tags that flow along each edge of a DTL graph, computed from the graph alone before
// any image runs, so that the output's class list (the COCO categories, the YOLO names) is known
// before its first image is written.
//
// Class mappings speak in five words:
//   `__other__`   as a key: every class the mapping does not name;
//   `__default__` as a value: the class keeps its title;
//   `__ignore__`  as a value: the class is left out (data, rename) or left as it is (shape changes);
//   `__clone__`   as a value (rename, duplicate_objects): the same as `__default__`, said of a copy;
//   `__new__`     is what a layer that changes shapes makes of a title that is not a class yet: a new
//                 class of the layer's shape, with a colour of its own.
// A title that is a class already joins it when the shapes agree, and is a 400 when they do not.
import type { ClassDefinition, ClassShape, TagDefinition } from '../formats/canonical.ts';
import { nextClassColor } from '../formats/class-colors.ts';

export const OTHER = '__other__';
export const IGNORE = '__ignore__';
export const DEFAULT = '__default__';
export const CLONE = '__clone__';
export const NEW = '__new__';

export const MAPPING_WORDS = [OTHER, IGNORE, DEFAULT, CLONE, NEW] as const;

/** The classes and tags of the items on one edge of the graph. */
export interface ClassSet {
  classes: ClassDefinition[];
  tags: TagDefinition[];
}

/** A mapping from source titles to targets, with its words resolved. */
export type Mapping = Readonly<Record<string, string>>;

/**
 * What the mapping makes of one class: its new title, null when the class is ignored, undefined when
 * the mapping neither names it nor has `__other__`.
 */
export function mapTitle(mapping: Mapping, title: string): string | null | undefined {
  const target = Object.hasOwn(mapping, title) ? mapping[title] : mapping[OTHER];
  if (target === undefined) return undefined;
  if (target === IGNORE) return null;
  if (target === DEFAULT || target === CLONE) return title;
  return target;
}

/** A problem of a layer's classes, turned into a 400 naming the layer by validate.ts. */
export class ClassError extends Error {
  constructor(
    message: string,
    /** The settings member it is about, as a JSON pointer below the layer's settings. */
    readonly at: string = '',
  ) {
    super(message);
  }
}

/** Titles a layer's settings list at `at` that must be classes of its input; an error points at the entry. */
export function requireClasses(input: ClassSet, titles: readonly string[], at: string): void {
  const known = new Set(input.classes.map((c) => c.title));
  titles.forEach((title, index) => {
    if (title !== OTHER && !known.has(title)) throw new ClassError(`there is no class "${title}" at this layer's input`, `${at}/${index}`);
  });
}

/** The titles a mapping at `at` maps from, which must be classes of its input; an error points at the member. */
export function requireMappedClasses(input: ClassSet, mapping: Readonly<Record<string, unknown>>, at: string): void {
  const known = new Set(input.classes.map((c) => c.title));
  for (const title of Object.keys(mapping)) {
    if (title !== OTHER && !known.has(title)) throw new ClassError(`there is no class "${title}" at this layer's input`, `${at}/${title.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  }
}

/** The one title a setting names (`class`, `lines_class`) that must be a class of the input; the pointer is the setting's. */
export function requireClass(input: ClassSet, title: string, at: string): void {
  if (title === OTHER || input.classes.some((c) => c.title === title)) return;
  throw new ClassError(`there is no class "${title}" at this layer's input`, at);
}

/** Classes in order with titles kept apart: a later class of a title already there joins it (same shape) or is an error. */
export class ClassListBuilder {
  private readonly byTitle = new Map<string, ClassDefinition>();

  constructor(private readonly at: string) {}

  /** `__clone__`: the class `from` under the title `title`, with its shape and colour. */
  clone(from: ClassDefinition, title: string): void {
    this.put({ ...from, title, color: title === from.title ? from.color : (this.byTitle.get(title)?.color ?? from.color) });
  }

  /** `__new__`: a class of the layer's shape (a class of that title in the input keeps its colour, a new one the palette's next). */
  create(title: string, shape: ClassShape, color?: string): void {
    this.put({ title, shape, color: color ?? this.byTitle.get(title)?.color ?? nextClassColor([...this.byTitle.values()].map((c) => c.color)) });
  }

  private put(c: ClassDefinition): void {
    const there = this.byTitle.get(c.title);
    if (!there) this.byTitle.set(c.title, c);
    else if (there.shape !== c.shape) throw new ClassError(`class "${c.title}" would be both a ${there.shape} and a ${c.shape}`, this.at);
  }

  list(): ClassDefinition[] {
    return [...this.byTitle.values()];
  }
}

/**
 * The classes after a layer that changes some classes' shape: each class the mapping names (or
 * `__other__` covers) of the shapes the layer takes becomes a class of `shape` under its new title;
 * the others pass as they are. `keepSource`: the source class stays too (duplicate-like layers).
 */
export function reshapedClasses(
  input: ClassSet,
  mapping: Mapping,
  accepts: (shape: ClassShape) => boolean,
  shape: (from: ClassShape) => ClassShape,
  keepSource = false,
): { set: ClassSet; targets: Map<string, string> } {
  requireMappedClasses(input, mapping, '/classes_mapping');
  const out = new ClassListBuilder('/classes_mapping');
  const targets = new Map<string, string>();
  for (const c of input.classes) {
    const title = accepts(c.shape) ? mapTitle(mapping, c.title) : null;
    if (title === null || title === undefined) {
      out.clone(c, c.title);
      continue;
    }
    if (keepSource) out.clone(c, c.title);
    const to = shape(c.shape);
    if (to === c.shape) out.clone(c, title);
    else out.create(title, to, title === c.title ? c.color : undefined);
    targets.set(c.title, title);
  }
  return { set: { classes: out.list(), tags: input.tags }, targets };
}

/** The union of the class sets reaching one layer from several sources, classes in first-seen order. */
export function mergeSets(sets: readonly ClassSet[], at: string): ClassSet {
  const classes = new ClassListBuilder(at);
  const tags = new Map<string, TagDefinition>();
  for (const set of sets) {
    for (const c of set.classes) classes.clone(c, c.title);
    for (const t of set.tags) if (!tags.has(`${t.scope}\u0000${t.title}`)) tags.set(`${t.scope}\u0000${t.title}`, t);
  }
  return { classes: classes.list(), tags: [...tags.values()] };
}
