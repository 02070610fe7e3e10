// How an annotation thread's answer for a batch crosses to the task's thread. A message is copied
// value by value, and each object or list in it costs more than its strings' bytes: 100,000
// preparations, each an object, a nested object and two lists, took 0.43 s of CPU across both threads
// to pass; the same as lists of strings, 0.28 s. So the common case travels flat (the blob facts as
// one typed array), and only the rare preparation with tags or a problem travels as it is.
import type { ImageFacts } from '../../repositories/staging.repository.ts';
import type { DerivedForms, Preparation } from './annotation-preparation.ts';

/** A batch's preparations, flat. */
export interface PackedPreparations {
  /** Each annotation's objects, in order; '' where `others` holds its preparation. */
  objects: string[];
  descriptions: string[];
  /** The derived forms of the others, each flat too ('' as its hash where it has none). */
  derived: PackedDerived;
  /** The preparations with tags, and the problems, by index. */
  others: Map<number, Preparation>;
}

/**
 * Derived forms (annotation-preparation.ts) of a list of preparations: each content's hash and text
 * size, its deflated bytes end to end (each ending at `bodyEnds[i]`), and every object's box (4 numbers)
 * and class title (an index into `titles`, which holds each title once), each preparation's objects
 * ending at `objectEnds[i]`.
 */
interface PackedDerived {
  hashes: string[];
  sizes: Float64Array;
  bodies: Uint8Array;
  bodyEnds: Uint32Array;
  titles: string[];
  objectTitles: Uint32Array;
  boxes: Float64Array;
  objectEnds: Uint32Array;
}

function packDerived(list: readonly (DerivedForms | undefined)[]): PackedDerived {
  const present = list.filter((d) => d !== undefined);
  const objects = present.reduce((n, d) => n + d.boxes.titles.length, 0);
  const packed: PackedDerived = {
    hashes: list.map((d) => d?.content.hash ?? ''),
    sizes: new Float64Array(list.map((d) => d?.content.size ?? 0)),
    bodies: Buffer.concat(present.map((d) => d.content.body)),
    bodyEnds: new Uint32Array(list.length),
    titles: [],
    objectTitles: new Uint32Array(objects),
    boxes: new Float64Array(objects * 4),
    objectEnds: new Uint32Array(list.length),
  };
  const titleIndex = new Map<string, number>();
  let bodyEnd = 0;
  let object = 0;
  list.forEach((d, i) => {
    if (d) {
      bodyEnd += d.content.body.length;
      packed.boxes.set(d.boxes.boxes, object * 4);
      for (const title of d.boxes.titles) {
        let index = titleIndex.get(title);
        if (index === undefined) titleIndex.set(title, (index = packed.titles.push(title) - 1));
        packed.objectTitles[object++] = index;
      }
    }
    packed.bodyEnds[i] = bodyEnd;
    packed.objectEnds[i] = object;
  });
  return packed;
}

function unpackDerived(packed: PackedDerived, i: number): DerivedForms | undefined {
  if (packed.hashes[i] === '') return undefined;
  const bodyStart = i === 0 ? 0 : packed.bodyEnds[i - 1]!;
  const objectStart = i === 0 ? 0 : packed.objectEnds[i - 1]!;
  const objectEnd = packed.objectEnds[i]!;
  return {
    // A Buffer, as the database drivers take it: a message carries a plain Uint8Array.
    content: { hash: packed.hashes[i]!, size: packed.sizes[i]!, body: Buffer.from(packed.bodies.buffer, packed.bodies.byteOffset + bodyStart, packed.bodyEnds[i]! - bodyStart) },
    boxes: {
      titles: Array.from(packed.objectTitles.subarray(objectStart, objectEnd), (t) => packed.titles[t]!),
      boxes: packed.boxes.slice(objectStart * 4, objectEnd * 4),
    },
  };
}

export function packPreparations(preparations: readonly Preparation[]): PackedPreparations {
  const packed: PackedPreparations = { objects: [], descriptions: [], derived: packDerived([]), others: new Map() };
  const derived: (DerivedForms | undefined)[] = [];
  preparations.forEach((preparation, index) => {
    const simple = 'annotation' in preparation && preparation.annotation.imageTags.length === 0 && preparation.annotation.objectTags.length === 0;
    packed.objects.push(simple ? preparation.annotation.objectsJson : '');
    packed.descriptions.push(simple ? preparation.annotation.description : '');
    derived.push(simple ? preparation.annotation.derived : undefined);
    if (!simple) packed.others.set(index, preparation);
  });
  packed.derived = packDerived(derived);
  return packed;
}

export function unpackPreparations({ objects, descriptions, derived, others }: PackedPreparations): Preparation[] {
  return objects.map((objectsJson, index): Preparation => {
    const other = others.get(index);
    if (other) return 'annotation' in other && other.annotation.derived ? { annotation: { ...other.annotation, derived: asBuffers(other.annotation.derived) } } : other;
    const forms = unpackDerived(derived, index);
    return { annotation: { description: descriptions[index]!, objectsJson, imageTags: [], objectTags: [], objectTagValues: null, ...(forms ? { derived: forms } : {}) } };
  });
}

/** Derived forms that crossed as they were, their body a Buffer again. */
const asBuffers = (d: DerivedForms): DerivedForms => ({ ...d, content: { ...d.content, body: Buffer.from(d.content.body.buffer, d.content.body.byteOffset, d.content.body.byteLength) } });

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
