// How an annotation thread's answer for a batch crosses to the task's thread. A message is copied
// value by value, and each object or list in it costs more than its strings' bytes: 100,000
// preparations, each an object, a nested object and two lists, took 0.43 s of CPU across both threads
// to pass; the same as lists of strings, 0.28 s. So the common case travels flat (the blob facts as
// one typed array), and only the rare preparation with tags or a problem travels as it is.
import type { ImageFacts } from '../../repositories/staging.repository.ts';
import type { Preparation } from './annotation-preparation.ts';

/** A batch's preparations, flat. */
export interface PackedPreparations {
  /** Each annotation's objects, in order; '' where `others` holds its preparation. */
  objects: string[];
  descriptions: string[];
  /** The preparations with tags, and the problems, by index. */
  others: Map<number, Preparation>;
}

export function packPreparations(preparations: readonly Preparation[]): PackedPreparations {
  const packed: PackedPreparations = { objects: [], descriptions: [], others: new Map() };
  preparations.forEach((preparation, index) => {
    const simple = 'annotation' in preparation && preparation.annotation.imageTags.length === 0 && preparation.annotation.objectTags.length === 0;
    packed.objects.push(simple ? preparation.annotation.objectsJson : '');
    packed.descriptions.push(simple ? preparation.annotation.description : '');
    if (!simple) packed.others.set(index, preparation);
  });
  return packed;
}

export function unpackPreparations({ objects, descriptions, others }: PackedPreparations): Preparation[] {
  return objects.map((objectsJson, index) => others.get(index) ?? { annotation: { description: descriptions[index]!, objectsJson, imageTags: [], objectTags: [], objectTagValues: null } });
}

/** Size, width and height of each blob of `hashes` in one list of numbers, NaN for what is missing. */
export function packFacts(hashes: readonly string[], facts: ReadonlyMap<string, ImageFacts>): Float64Array {
  const packed = new Float64Array(hashes.length * 3).fill(Number.NaN);
  hashes.forEach((hash, i) => {
    const blob = facts.get(hash);
    if (!blob) return;
    packed[i * 3] = blob.size;
    packed[i * 3 + 1] = blob.width ?? Number.NaN;
    packed[i * 3 + 2] = blob.height ?? Number.NaN;
  });
  return packed;
}

export function unpackFacts(hashes: readonly string[], packed: Float64Array): Map<string, ImageFacts> {
  const facts = new Map<string, ImageFacts>();
  const orNull = (n: number) => (Number.isNaN(n) ? null : n);
  hashes.forEach((hash, i) => {
    const size = packed[i * 3]!;
    if (!Number.isNaN(size)) facts.set(hash, { size, width: orNull(packed[i * 3 + 1]!), height: orNull(packed[i * 3 + 2]!) });
  });
  return facts;
}
