// The annotation being edited, as an immutable value: every edit is a command, a pure function from
// one document to the next, so undo and redo are a matter of keeping the documents (history.ts) and
// an unchanged object is the same object in every version (the drawing skips it). A command that
// would break the format's rules (a polygon under 3 points, a point outside the image) refuses with
// an EditRefused instead of producing a document the server would turn down.
import type { Annotation, AnnotationObject, Point } from './annotation-types.ts';
import {
  MIN_HOLE_POINTS,
  MIN_POINTS,
  type Shape,
  type Size,
  boundedMove,
  boxOf,
  clampPoint,
  clampRing,
  rectangleOf,
  translated,
  withVertexInserted,
  withVertexMoved,
  withVertexRemoved,
} from './geometry.ts';

export interface EditObject {
  /** The object's identity in the editor: new objects have one before the server gives them an id. */
  key: number;
  /** The server's id; absent until the object is saved. */
  id?: number;
  classTitle: string;
  description: string;
  tags: string[];
  /** Values of the tags that have one, by title (only tags the object carries). */
  tagValues?: TagValues;
  bitmap: AnnotationObject['bitmap'];
  points: { exterior: Point[]; interior: Point[][] };
}

/** A tag's value, typed by its tag's value type (a number for any_number, text otherwise). */
export type TagValue = string | number;
export type TagValues = Readonly<Record<string, TagValue>>;

export interface EditorDocument {
  size: Size;
  description: string;
  tags: string[];
  /** The image tags' values, by title. */
  tagValues?: TagValues;
  objects: readonly EditObject[];
  /** The key the next new object gets. */
  nextKey: number;
}

/** A ring of an object: the exterior, or hole `n` (0-based). */
export type RingRef = 'exterior' | number;

export class EditRefused extends Error {}

export function fromAnnotation(annotation: Annotation): EditorDocument {
  const objects = annotation.objects.map((o, i) => ({ key: i + 1, id: o.id, classTitle: o.classTitle, description: o.description, tags: o.tags, tagValues: o.tagValues ?? {}, bitmap: o.bitmap, points: o.points }));
  return { size: annotation.size, description: annotation.description, tags: annotation.tags, tagValues: annotation.tagValues ?? {}, objects, nextKey: objects.length + 1 };
}

/**
 * The PUT body of the document. `keys[i]` is the key of `objects[i]`, to find the object a problem's
 * pointer (`/objects/3/...`) names. `knownIds`, when given, are the ids the image has now: an object
 * whose id is not among them (removed by someone else meanwhile) is sent as a new object.
 */
export function toAnnotationBody(doc: EditorDocument, knownIds?: ReadonlySet<number>) {
  const objects = doc.objects.map((o) => ({
    ...(o.id !== undefined && (!knownIds || knownIds.has(o.id)) ? { id: o.id } : {}),
    classTitle: o.classTitle,
    description: o.description,
    tags: o.tags,
    // Sent whole: a tag left out of it has no value.
    tagValues: valuesOf(o.tagValues, o.tags),
    bitmap: o.bitmap,
    points: o.points,
  }));
  return { body: { description: doc.description, tags: doc.tags, tagValues: valuesOf(doc.tagValues, doc.tags), objects }, keys: doc.objects.map((o) => o.key) };
}

/** The object's index in `objects[]` of a problem's JSON pointer, or -1. */
export function objectIndexOfPointer(pointer: string): number {
  const m = /^\/objects\/(\d+)(?:\/|$)/.exec(pointer);
  return m ? Number(m[1]) : -1;
}

function find(doc: EditorDocument, key: number): EditObject {
  const object = doc.objects.find((o) => o.key === key);
  if (!object) throw new EditRefused('that object is no longer there');
  return object;
}

function replaced(doc: EditorDocument, key: number, change: (o: EditObject) => EditObject): EditorDocument {
  return { ...doc, objects: doc.objects.map((o) => (o.key === key ? change(o) : o)) };
}

function checkPoints(shape: Shape, points: EditObject['points']): void {
  const min = MIN_POINTS[shape];
  if (shape === 'point' && points.exterior.length !== 1) throw new EditRefused('a point has exactly 1 point');
  if (shape === 'rectangle' && points.exterior.length !== 2) throw new EditRefused('a rectangle has 2 corners');
  if (points.exterior.length < min) throw new EditRefused(`a ${shape} needs at least ${min} points`);
  if (points.interior.some((hole) => hole.length < MIN_HOLE_POINTS)) throw new EditRefused(`a hole needs at least ${MIN_HOLE_POINTS} points`);
}

/** Adds an object (its points clamped into the image); it gets the key `doc.nextKey`. */
export function addObject(doc: EditorDocument, shape: Shape, object: Omit<EditObject, 'key' | 'id'>): EditorDocument {
  const points = shape === 'rectangle' && object.points.exterior.length === 2 ? { exterior: rectangleOf(object.points.exterior[0]!, object.points.exterior[1]!, doc.size), interior: [] } : { exterior: clampRing(object.points.exterior, doc.size), interior: object.points.interior.map((h) => clampRing(h, doc.size)) };
  if (shape !== 'bitmap') checkPoints(shape, points);
  else if (!object.bitmap) throw new EditRefused('a bitmap object needs a mask');
  return { ...doc, objects: [...doc.objects, { ...object, points, key: doc.nextKey }], nextKey: doc.nextKey + 1 };
}

export function removeObject(doc: EditorDocument, key: number): EditorDocument {
  find(doc, key);
  return { ...doc, objects: doc.objects.filter((o) => o.key !== key) };
}

/** Moves the whole object by (dx, dy), as far as it can go without leaving the image. */
export function moveObject(doc: EditorDocument, key: number, dx: number, dy: number): EditorDocument {
  const object = find(doc, key);
  if (object.bitmap) {
    // The mask's size is its PNG's, unknown here: its corner at least stays inside the image.
    const [x = 0, y = 0] = object.bitmap.origin;
    const origin = [Math.min(doc.size.width - 1, Math.max(0, Math.round(x + dx))), Math.min(doc.size.height - 1, Math.max(0, Math.round(y + dy)))];
    if (origin[0] === x && origin[1] === y) return doc;
    return replaced(doc, key, (o) => ({ ...o, bitmap: { ...object.bitmap!, origin } }));
  }
  const [mx, my] = boundedMove(boxOf(object.points.exterior), dx, dy, doc.size);
  if (mx === 0 && my === 0) return doc;
  return replaced(doc, key, (o) => ({ ...o, points: { exterior: translated(o.points.exterior, mx, my), interior: o.points.interior.map((h) => translated(h, mx, my)) } }));
}

function ringOf(object: EditObject, ring: RingRef): Point[] {
  const points = ring === 'exterior' ? object.points.exterior : object.points.interior[ring];
  if (!points) throw new EditRefused('that hole is no longer there');
  return points;
}

function withRing(object: EditObject, ring: RingRef, points: Point[]): EditObject {
  if (ring === 'exterior') return { ...object, points: { ...object.points, exterior: points } };
  return { ...object, points: { ...object.points, interior: object.points.interior.map((h, i) => (i === ring ? points : h)) } };
}

/** Moves one vertex (clamped into the image). A rectangle's corners go through rectangleWithCorner. */
export function moveVertex(doc: EditorDocument, key: number, ring: RingRef, at: number, to: readonly number[]): EditorDocument {
  const object = find(doc, key);
  const points = ringOf(object, ring);
  if (at < 0 || at >= points.length) throw new EditRefused('that vertex is no longer there');
  return replaced(doc, key, (o) => withRing(o, ring, withVertexMoved(points, at, clampPoint(to, doc.size))));
}

/** Replaces a rectangle's corners (any two opposite corners; stored as [[left, top], [right, bottom]]). */
export function setRectangle(doc: EditorDocument, key: number, a: readonly number[], b: readonly number[]): EditorDocument {
  find(doc, key);
  return replaced(doc, key, (o) => ({ ...o, points: { exterior: rectangleOf(a, b, doc.size), interior: [] } }));
}

/** Adds a vertex before index `at` of a polygon's or line's ring (an edge split in two). */
export function insertVertex(doc: EditorDocument, key: number, shape: Shape, ring: RingRef, at: number, point: readonly number[]): EditorDocument {
  if (shape !== 'polygon' && shape !== 'line') throw new EditRefused(`a ${shape} has no vertices to add`);
  const object = find(doc, key);
  const points = ringOf(object, ring);
  return replaced(doc, key, (o) => withRing(o, ring, withVertexInserted(points, at, clampPoint(point, doc.size))));
}

/** Removes a vertex, unless the ring would fall under its shape's minimum (a polygon 3, a line 2, a hole 3). */
export function removeVertex(doc: EditorDocument, key: number, shape: Shape, ring: RingRef, at: number): EditorDocument {
  if (shape !== 'polygon' && shape !== 'line') throw new EditRefused(`a ${shape} keeps all its points: delete the object instead`);
  const object = find(doc, key);
  const min = ring === 'exterior' ? MIN_POINTS[shape] : MIN_HOLE_POINTS;
  const points = withVertexRemoved(ringOf(object, ring), at, min);
  if (!points) throw new EditRefused(`${ring === 'exterior' ? `a ${shape}` : 'a hole'} needs at least ${min} points`);
  return replaced(doc, key, (o) => withRing(o, ring, points));
}

/** Cuts a hole (a ring of at least 3 points, clamped into the image) into a polygon. */
export function addHole(doc: EditorDocument, key: number, shape: Shape, hole: readonly (readonly number[])[]): EditorDocument {
  if (shape !== 'polygon') throw new EditRefused('only a polygon can have holes');
  if (hole.length < MIN_HOLE_POINTS) throw new EditRefused(`a hole needs at least ${MIN_HOLE_POINTS} points`);
  find(doc, key);
  return replaced(doc, key, (o) => ({ ...o, points: { ...o.points, interior: [...o.points.interior, clampRing(hole, doc.size)] } }));
}

export function removeHole(doc: EditorDocument, key: number, index: number): EditorDocument {
  const object = find(doc, key);
  if (!object.points.interior[index]) throw new EditRefused('that hole is no longer there');
  return replaced(doc, key, (o) => ({ ...o, points: { ...o.points, interior: o.points.interior.filter((_, i) => i !== index) } }));
}

/** Gives the object another class of the same shape (its geometry must still fit). */
export function setClass(doc: EditorDocument, key: number, classTitle: string, shapeOf: (title: string) => Shape | undefined): EditorDocument {
  const object = find(doc, key);
  const from = shapeOf(object.classTitle);
  const to = shapeOf(classTitle);
  if (!to) throw new EditRefused(`the project has no class “${classTitle}”`);
  if (from !== undefined && from !== to) throw new EditRefused(`a ${from} cannot become a ${to}: pick a class of shape ${from}`);
  if (object.classTitle === classTitle) return doc;
  return replaced(doc, key, (o) => ({ ...o, classTitle }));
}

/** The values of `tags` among `values`: a tag taken off loses its value. */
function valuesOf(values: TagValues | undefined, tags: readonly string[]): Record<string, TagValue> {
  const kept: Record<string, TagValue> = {};
  for (const title of tags) if (values && Object.hasOwn(values, title)) kept[title] = values[title]!;
  return kept;
}

/** `values` with the tag's value set, or taken away when null. */
function withValue(values: TagValues | undefined, title: string, value: TagValue | null): TagValues {
  const next = { ...values };
  if (value === null) delete next[title];
  else next[title] = value;
  return next;
}

export function setObjectTags(doc: EditorDocument, key: number, tags: string[]): EditorDocument {
  find(doc, key);
  return replaced(doc, key, (o) => ({ ...o, tags, tagValues: valuesOf(o.tagValues, tags) }));
}

/** Sets the value of a tag the object carries (null: no value). */
export function setObjectTagValue(doc: EditorDocument, key: number, title: string, value: TagValue | null): EditorDocument {
  const object = find(doc, key);
  if (!object.tags.includes(title)) throw new EditRefused(`the object has no tag "${title}"`);
  if ((object.tagValues?.[title] ?? null) === value) return doc;
  return replaced(doc, key, (o) => ({ ...o, tagValues: withValue(o.tagValues, title, value) }));
}

/** Sets the value of an image tag the image carries (null: no value). */
export function setImageTagValue(doc: EditorDocument, title: string, value: TagValue | null): EditorDocument {
  if (!doc.tags.includes(title)) throw new EditRefused(`the image has no tag "${title}"`);
  if ((doc.tagValues?.[title] ?? null) === value) return doc;
  return { ...doc, tagValues: withValue(doc.tagValues, title, value) };
}

export function setObjectDescription(doc: EditorDocument, key: number, description: string): EditorDocument {
  if (find(doc, key).description === description) return doc;
  return replaced(doc, key, (o) => ({ ...o, description }));
}

/** Replaces a bitmap object's mask (null leaves nothing painted: the object goes). */
export function setBitmap(doc: EditorDocument, key: number, bitmap: EditObject['bitmap']): EditorDocument {
  find(doc, key);
  if (!bitmap) return removeObject(doc, key);
  return replaced(doc, key, (o) => ({ ...o, bitmap }));
}

export const setImageDescription = (doc: EditorDocument, description: string): EditorDocument => (doc.description === description ? doc : { ...doc, description });
export const setImageTags = (doc: EditorDocument, tags: string[]): EditorDocument => ({ ...doc, tags, tagValues: valuesOf(doc.tagValues, tags) });

/** Adds the tag if it is missing, removes it if present, keeping the order of `all` (the project's). */
export function toggled(tags: readonly string[], title: string, all: readonly string[]): string[] {
  const chosen = new Set(tags);
  if (!chosen.delete(title)) chosen.add(title);
  const ordered = all.filter((t) => chosen.has(t));
  // Tags the project no longer lists stay, after the others.
  return [...ordered, ...tags.filter((t) => chosen.has(t) && !all.includes(t))];
}
