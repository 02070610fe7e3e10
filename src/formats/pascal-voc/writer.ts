// Writes Pascal VOC: `Annotations/<stem>.xml`, `JPEGImages/<name>`, `ImageSets/Main/<dataset>.txt`
// and `labelmap.txt`; with `segmentation`, also `SegmentationClass/<stem>.png`,
// `SegmentationObject/<stem>.png` and `ImageSets/Segmentation/<dataset>.txt`.
//
// - Every object with an area is an <object> with its box: a rectangle's, a polygon's or a
//   bitmap's bounding box (a bitmap's is the box of its PNG), clipped to the image. The box numbers
//   are the object's coordinates as they are, as our import reads them (and CVAT, Datumaro and
//   labelImg write and read them): a VOC file imported and exported keeps its boxes. Lines and
//   points are left out.
// - pose, truncated, difficult and occluded are written from the object's tags of those names, each
//   with its value (a tag without one, a flag, as 1; pose as `Unspecified`), and only those the object
//   has: an object without a `difficult` tag gets no <difficult>. The tags of VOC's action names
//   are its <actions>; an object with the tag `part of` (as the import reads a <part>) right after
//   its whole is that object's <part>; the other tags are CVAT's <attributes>.
// - Segmentation masks are palette PNGs of the image's size: 0 is background, 255 the void colour
//   (not drawn: the masks are exact). SegmentationClass holds the class's index in labelmap.txt,
//   SegmentationObject the number of the object in the XML, in the VOC palette. Only polygons and
//   bitmaps are drawn, later objects over earlier ones; an image without either has no masks.
// - labelmap.txt lists `background` and every class with its colour, the colour of its index in the
//   class masks. A class whose colour is black, the void colour or an earlier class's gets a VOC
//   palette colour instead, so the masks can be read back by colour.
// - JPEGImages is one folder for every dataset: images whose stems meet are renamed `<stem>_1`…
import { UniqueNames, pathSegment, stemOf } from '../archive-names.ts';
import type { ClassShape, Point } from '../canonical.ts';
import { pointsBox } from '../coco/geometry.ts';
import { encodePng } from '../png.ts';
import { type Raster, newRaster, paintObject } from '../raster.ts';
import { readMaskSize } from '../supervisely/bitmap.ts';
import { type ArchiveEntry, DatasetSequence, type ExportObject, type ExportProject, type ExportRecord, type FormatWriter, Notices, UNKNOWN_CLASS, type WriterNotice, classIndex, colorValue } from '../writer.ts';
import { vocColor } from './masks.ts';

export interface VocWriterOptions {
  includeImages: boolean;
  segmentation: boolean;
}

const RENAMED = 'images renamed so that no two share a stem in JPEGImages (or to be safe in a path)';
export const SKIPPED_LINE_OR_POINT = 'lines and points are left out: a VOC object is a box';
export const SKIPPED_OUTSIDE = 'objects with nothing inside their image are left out';
export const BOXES_ONLY = 'polygons and bitmaps are kept as their boxes only (the segmentation option keeps their shapes in masks)';
const UNPAINTED = 'objects past the 254th of an image, or of a class past the 254th, are not drawn in the masks';

/** The void colour of VOC masks, index 255. */
const VOID = vocColor(255);
const VOC_PALETTE = Array.from({ length: 256 }, (_, i) => vocColor(i));
/** The object members written from tags, in VOC's order, each with what a tag without a value writes. */
const MEMBER_FLAGS: [string, string][] = [
  ['pose', 'Unspecified'],
  ['truncated', '1'],
  ['difficult', '1'],
  ['occluded', '1'],
];
/** The actions of VOC's action task (the children of <actions>). */
const ACTIONS = new Set(['jumping', 'phoning', 'playinginstrument', 'reading', 'ridingbike', 'ridinghorse', 'running', 'takingphoto', 'usingcomputer', 'walking', 'other']);
const PART_OF = 'part of';

interface VocObject {
  object: ExportObject;
  classTitle: string;
  shape: ClassShape;
  classIndex: number;
  /** [xmin, ymin, xmax, ymax]: the object's box in its own coordinates. */
  box: [number, number, number, number];
}

interface DatasetLists {
  file: string;
  main: string[];
  segmentation: string[];
}

export class VocWriter implements FormatWriter {
  private readonly classes: ReturnType<typeof classIndex>;
  private readonly sequence = new DatasetSequence();
  private readonly notes = new Notices();
  private readonly names = new UniqueNames('stem');
  private readonly listFiles = new UniqueNames('name');
  /** The colour of each class mask index: background, the classes, void. */
  private readonly classPalette: number[];
  private current: DatasetLists | null = null;

  constructor(
    private readonly project: ExportProject,
    private readonly options: VocWriterOptions,
  ) {
    this.classes = classIndex(project);
    this.classPalette = classColors(project.classes.map((c) => colorValue(c.color)));
  }

  async add(record: ExportRecord): Promise<ArchiveEntry[]> {
    const entries: ArchiveEntry[] = [];
    if (this.sequence.advance(record.dataset).starts) {
      if (this.current) entries.push(...this.lists(this.current));
      this.current = { file: this.listFiles.claim(`${pathSegment(record.dataset)}.txt`), main: [], segmentation: [] };
    }
    const name = this.names.claim(pathSegment(record.name));
    if (name !== record.name) this.notes.add(RENAMED, record);
    const stem = stemOf(name);
    const objects = record.objects.flatMap((o) => this.vocObject(o, record));
    const masks = this.options.segmentation ? await this.masks(record, objects) : null;
    if (this.options.includeImages) entries.push({ path: `JPEGImages/${name}`, body: { blobHash: record.hash } });
    entries.push({ path: `Annotations/${stem}.xml`, body: Buffer.from(annotationXml(record, name, objects, masks !== null)) });
    this.current!.main.push(stem);
    if (masks) {
      entries.push({ path: `SegmentationClass/${stem}.png`, body: masks.byClass }, { path: `SegmentationObject/${stem}.png`, body: masks.byObject });
      this.current!.segmentation.push(stem);
    }
    return entries;
  }

  private vocObject(object: ExportObject, record: ExportRecord): VocObject[] {
    const found = this.classes.get(object.classTitle);
    if (!found) {
      this.notes.add(UNKNOWN_CLASS, record);
      return [];
    }
    if (found.shape === 'line' || found.shape === 'point') {
      this.notes.add(SKIPPED_LINE_OR_POINT, record);
      return [];
    }
    const [x, y, w, h] = objectBox(object, found.shape);
    const [left, top] = [Math.max(0, x), Math.max(0, y)];
    const [right, bottom] = [Math.min(record.width, x + w), Math.min(record.height, y + h)];
    if (!(right > left && bottom > top)) {
      this.notes.add(SKIPPED_OUTSIDE, record);
      return [];
    }
    if (!this.options.segmentation && (found.shape === 'polygon' || found.shape === 'bitmap')) this.notes.add(BOXES_ONLY, record);
    return [{ object, classTitle: object.classTitle, shape: found.shape, classIndex: found.index, box: [left, top, right, bottom] }];
  }

  /** The two masks of an image, or null when it has no polygon or bitmap. */
  private async masks(record: ExportRecord, objects: VocObject[]): Promise<{ byClass: Buffer; byObject: Buffer } | null> {
    if (!objects.some((o) => o.shape === 'polygon' || o.shape === 'bitmap')) return null;
    const byClass = newRaster(record.width, record.height);
    const byObject = newRaster(record.width, record.height);
    for (const [k, o] of objects.entries()) {
      if (o.shape !== 'polygon' && o.shape !== 'bitmap') continue;
      if (k + 1 >= 255 || o.classIndex + 1 >= 255) {
        this.notes.add(UNPAINTED, record);
        continue;
      }
      await paintObject(byClass, o.shape, o.object, o.classIndex + 1);
      await paintObject(byObject, o.shape, o.object, k + 1);
    }
    const png = (r: Raster, palette: number[]) => encodePng({ ...r, kind: 'palette', palette });
    return { byClass: await png(byClass, this.classPalette), byObject: await png(byObject, VOC_PALETTE) };
  }

  private lists(dataset: DatasetLists): ArchiveEntry[] {
    const list = (stems: string[]) => Buffer.from(stems.map((s) => `${s}\n`).join(''));
    const entries: ArchiveEntry[] = [{ path: `ImageSets/Main/${dataset.file}`, body: list(dataset.main) }];
    if (dataset.segmentation.length > 0) entries.push({ path: `ImageSets/Segmentation/${dataset.file}`, body: list(dataset.segmentation) });
    return entries;
  }

  async finish(): Promise<ArchiveEntry[]> {
    const entries = this.current ? this.lists(this.current) : [];
    this.current = null;
    const rgb = (c: number) => `${(c >> 16) & 0xff},${(c >> 8) & 0xff},${c & 0xff}`;
    const lines = ['# label:color_rgb:parts:actions', 'background:0,0,0::', ...this.project.classes.map((c, i) => `${c.title}:${rgb(this.classPalette[i + 1] ?? vocColor(i + 1))}::`)];
    entries.push({ path: 'labelmap.txt', body: Buffer.from(lines.map((l) => `${l}\n`).join('')) });
    return entries;
  }

  notices(): WriterNotice[] {
    return this.notes.list();
  }

  async close(): Promise<void> {}
}

/**
 * The class mask palette: black, then each class's colour unless black, void or an earlier class's
 * has it (then the first VOC palette colour free), void at 255. Classes past the 254th have no index.
 */
function classColors(colors: readonly number[]): number[] {
  const taken = new Set([0, VOID]);
  const palette = [0];
  let spare = 1;
  for (const color of colors.slice(0, 254)) {
    let chosen = color;
    if (taken.has(chosen)) {
      while (taken.has(vocColor(spare))) spare++;
      chosen = vocColor(spare);
    }
    taken.add(chosen);
    palette.push(chosen);
  }
  while (palette.length < 255) palette.push(0);
  palette.push(VOID);
  return palette;
}

/** `[x, y, width, height]` of an object with an area. */
function objectBox(object: ExportObject, shape: ClassShape): [number, number, number, number] {
  if (shape !== 'bitmap') return pointsBox(object.points.exterior);
  if (!object.bitmap) return [0, 0, 0, 0];
  const { width, height } = readMaskSize(object.bitmap.data);
  const [x, y] = object.bitmap.origin as Point;
  return [x, y, width, height];
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function annotationXml(record: ExportRecord, fileName: string, objects: VocObject[], segmented: boolean): string {
  const lines = [
    '<annotation>',
    '  <folder>JPEGImages</folder>',
    `  <filename>${escape(fileName)}</filename>`,
    '  <size>',
    `    <width>${record.width}</width>`,
    `    <height>${record.height}</height>`,
    '    <depth>3</depth>',
    '  </size>',
    `  <segmented>${segmented ? 1 : 0}</segmented>`,
  ];
  for (const [k, { object, classTitle, box }] of objects.entries()) {
    if (isPartOf(object, objects[k - 1])) continue;
    lines.push('  <object>', `    <name>${escape(classTitle)}</name>`);
    for (const [member, flag] of MEMBER_FLAGS) {
      const tag = object.tags.find((t) => t.name === member);
      if (tag) lines.push(`    <${member}>${escape(tag.value === null ? flag : String(tag.value))}</${member}>`);
    }
    lines.push(...boxXml(box, '    '));
    // The parts of the object follow it, as the import reads them.
    for (let next = k + 1; next < objects.length && isPartOf(objects[next]!.object, objects[next - 1]); next += 1) {
      const part = objects[next]!;
      lines.push('    <part>', `      <name>${escape(part.classTitle)}</name>`, ...boxXml(part.box, '      '), '    </part>');
    }
    const actions = object.tags.filter((t) => ACTIONS.has(t.name) && t.value !== null);
    if (actions.length > 0) lines.push('    <actions>', ...actions.map((t) => `      <${t.name}>${escape(String(t.value))}</${t.name}>`), '    </actions>');
    const attributes = object.tags.filter((t) => !MEMBER_FLAGS.some(([m]) => m === t.name) && !actions.includes(t));
    if (attributes.length > 0) {
      lines.push('    <attributes>');
      for (const t of attributes) {
        const value = t.value === null ? '' : `<value>${escape(String(t.value))}</value>`;
        lines.push(`      <attribute><name>${escape(t.name)}</name>${value}</attribute>`);
      }
      lines.push('    </attributes>');
    }
    lines.push('  </object>');
  }
  lines.push('</annotation>');
  return `${lines.join('\n')}\n`;
}

/**
 * Whether the object is a part (its only tag `part of`, valued) of the object before it: that one's
 * class, or the whole a run of parts before it belongs to.
 */
function isPartOf(object: ExportObject, before: VocObject | undefined): boolean {
  if (!before || object.tags.length !== 1 || object.tags[0]!.name !== PART_OF) return false;
  const whole = object.tags[0]!.value;
  const beforeWhole = before.object.tags.length === 1 && before.object.tags[0]!.name === PART_OF ? before.object.tags[0]!.value : before.classTitle;
  return typeof whole === 'string' && whole === beforeWhole;
}

function boxXml([xmin, ymin, xmax, ymax]: [number, number, number, number], indent: string): string[] {
  return [`${indent}<bndbox>`, `${indent}  <xmin>${xmin}</xmin>`, `${indent}  <ymin>${ymin}</ymin>`, `${indent}  <xmax>${xmax}</xmax>`, `${indent}  <ymax>${ymax}</ymax>`, `${indent}</bndbox>`];
}
