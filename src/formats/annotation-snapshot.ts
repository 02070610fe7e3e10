// The stored form of one state of an image's annotation (annotation_snapshots): the columns an
// annotation is written to, as JSON text, deflated, and named by the SHA-256 of the text so equal
// states are stored once. Objects stay the text they were stored as: a state read back writes the same
// bytes, and reading it never re-encodes a polygon.
//
// Two kinds of state share the table, and a hash names one state whichever wrote it: the state a
// revision replaced (annotation-revisions.service.ts), and an image's annotation content (objects,
// their ids and tag values, description; no image tags, which a project-wide tag rename would change
// under it) that `images.annotation_hash` and the versions' `version_images.annotation_hash` name.
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** An annotation's state as stored, apart from the image it belongs to. */
export interface AnnotationSnapshot {
  description: string;
  /** Image tags in tag id order: title, and value as JSON text or null. */
  tags: { title: string; value: string | null }[];
  objectsJson: string;
  objectIds: string | null;
  nextObjectId: number | null;
  objectTagValues: string | null;
}

/** The empty annotation: a new image's state before its first revision. */
export const EMPTY_SNAPSHOT: AnnotationSnapshot = { description: '', tags: [], objectsJson: '[]', objectIds: null, nextObjectId: null, objectTagValues: null };

export interface EncodedSnapshot {
  hash: string;
  body: Buffer;
  size: number;
}

export function encodeSnapshot(s: AnnotationSnapshot): EncodedSnapshot {
  const text = Buffer.from(
    JSON.stringify({
      description: s.description,
      tags: s.tags.map((t) => [t.title, t.value]),
      objectsJson: s.objectsJson,
      objectIds: s.objectIds,
      nextObjectId: s.nextObjectId,
      objectTagValues: s.objectTagValues,
    }),
  );
  return { hash: createHash('sha256').update(text).digest('base64url'), body: deflateRawSync(text, { windowBits: windowBitsFor(text.length) }), size: text.length };
}

/**
 * The smallest window that holds the whole text (2⁹ to 2¹⁵ bytes): it compresses exactly as well as
 * the default 32 KiB, since no match can reach further back than the text's start, and a snapshot of
 * a few kilobytes (most of them) is deflated in 60% of the time, the default's window being most of
 * the cost of setting up each call. Inflating needs nothing: a raw stream of a smaller window reads
 * with the default one.
 */
const windowBitsFor = (bytes: number) => Math.min(15, Math.max(9, Math.ceil(Math.log2(Math.max(bytes, 1)))));

export function decodeSnapshot(body: Buffer): AnnotationSnapshot {
  const read = JSON.parse(inflateRawSync(body).toString()) as Omit<AnnotationSnapshot, 'tags'> & { tags: [string, string | null][] };
  return { ...read, tags: read.tags.map(([title, value]) => ({ title, value })) };
}

/** What a version keeps of an image's annotation, and what `images.annotation_hash` names. */
export interface AnnotationContent {
  description: string;
  objectsJson: string;
  objectIds: string | null;
  objectTagValues: string | null;
}

/** The content as a snapshot: no image tags, no next object id (neither is part of it). */
export const encodeContent = (c: AnnotationContent): EncodedSnapshot =>
  encodeSnapshot({ description: c.description, tags: [], objectsJson: c.objectsJson, objectIds: c.objectIds, nextObjectId: null, objectTagValues: c.objectTagValues });

export function decodeContent(body: Buffer): AnnotationContent {
  const s = decodeSnapshot(body);
  return { description: s.description, objectsJson: s.objectsJson, objectIds: s.objectIds, objectTagValues: s.objectTagValues };
}
