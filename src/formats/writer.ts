// The contract between an export and the format writers: image records in, archive entries out.
//
// An export reads a project's annotation pages, hands each image to a writer as one ExportRecord,
// and puts the entries the writer answers into the archive in the order they come. A writer never
// reads image bytes (it names their blob) and holds little: per image a short name at most, so a
// project of any size streams through it. Records come grouped by dataset: all images of one
// dataset, then all of the next; a writer may close a dataset's files when the next one starts.
import type { CanonicalTag, ClassDefinition, ClassShape, Point, TagDefinition } from './canonical.ts';

/** One object of an exported image: a stored object, its tags with their values. */
export interface ExportObject {
  classTitle: string;
  description: string;
  tags: CanonicalTag[];
  bitmap: { origin: [number, number]; data: string } | null;
  points: { exterior: Point[]; interior: Point[][] };
}

/** One image of the project as the writers take it. */
export interface ExportRecord {
  dataset: string;
  name: string;
  width: number;
  height: number;
  /** The blob that holds the image's bytes. */
  hash: string;
  description: string;
  tags: CanonicalTag[];
  objects: ExportObject[];
}

/** A class as a writer takes it: a version's carries its stable index (1..N, 0 is masks' background). */
export type ExportClass = ClassDefinition & { index?: number };

/** What a writer knows of the project before the first record. */
export interface ExportProject {
  title: string;
  /** In the order the writers number them; a version's classes carry their stable index. */
  classes: ExportClass[];
  tags: TagDefinition[];
}

/**
 * The bytes of an archive entry: at hand, a stored blob to copy as it is (the image files), or a
 * stream made when the entry is written (a large generated file). A stream is read once.
 */
export type EntryBody = Buffer | { blobHash: string } | { stream: () => AsyncIterable<Buffer> };

export interface ArchiveEntry {
  /** `/`-separated, relative, every segment safe (see archive-names.ts). */
  path: string;
  body: EntryBody;
}

/** Something a writer left out or changed, counted, with the first image it happened to. */
export interface WriterNotice {
  message: string;
  count: number;
  /** `<dataset>/<image name>` of the first occurrence. */
  first: string;
}

/**
 * A format writer. Call `add` for each record, grouped by dataset, then `finish` once; write each
 * answer's entries in order. Call `close` in every case at the end: it removes what the writer keeps
 * on disk (the COCO spool) whether or not its streams were read.
 */
export interface FormatWriter {
  /** The entries of one image, and those of the dataset the record's dataset follows, if it closes one. */
  add(record: ExportRecord): Promise<ArchiveEntry[]>;
  /** The entries that wait for the last record: descriptions, class lists, split lists. */
  finish(): Promise<ArchiveEntry[]>;
  /** What was left out or renamed so far. */
  notices(): WriterNotice[];
  close(): Promise<void>;
}

/** The notice of every writer for an object whose class is not among the project's. */
export const UNKNOWN_CLASS = 'objects of a class the project does not have are left out';

/** Notices counted by message. */
export class Notices {
  private readonly byMessage = new Map<string, WriterNotice>();

  add(message: string, record: Pick<ExportRecord, 'dataset' | 'name'>): void {
    const notice = this.byMessage.get(message);
    if (notice) notice.count += 1;
    else this.byMessage.set(message, { message, count: 1, first: `${record.dataset}/${record.name}` });
  }

  list(): WriterNotice[] {
    return [...this.byMessage.values()].map((n) => ({ ...n }));
  }
}

/**
 * Follows the datasets of the records, for a writer that closes a dataset's files when the next
 * one starts. A dataset that comes back after another one began is a caller's error.
 */
export class DatasetSequence {
  private current: string | null = null;
  private readonly done = new Set<string>();

  /** Whether `dataset` starts here; the dataset it follows, if any, is then `ended`. */
  advance(dataset: string): { starts: boolean; ended: string | null } {
    if (dataset === this.current) return { starts: false, ended: null };
    if (this.done.has(dataset)) throw new Error(`the records of dataset "${dataset}" must come together, not after those of another dataset`);
    const ended = this.current;
    if (ended !== null) this.done.add(ended);
    this.current = dataset;
    return { starts: true, ended };
  }
}

/**
 * The project's classes by title: their index (in project order), shape, and the number a format
 * with class numbers gives them: a version's stable index, else the position counted from 1.
 */
export function classIndex(project: ExportProject): Map<string, { index: number; number: number; shape: ClassShape; color: string }> {
  return new Map(project.classes.map((c, index) => [c.title, { index, number: classNumber(c, index), shape: c.shape, color: c.color }]));
}

/** The class's number counted from 1: a version's stable index, else its position + 1. */
export const classNumber = (c: ExportClass, position: number): number => c.index ?? position + 1;

/** `#RRGGBB` → 0xRRGGBB. */
export const colorValue = (hex: string): number => parseInt(hex.slice(1), 16);
