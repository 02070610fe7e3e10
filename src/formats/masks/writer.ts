// Writes what Supervisely's `save_masks` writes: the Supervisely project (meta.json, img/, ann/) and,
// beside each dataset's images, `masks_machine/<stem>.png` and `masks_human/<stem>.png`, with
// `obj_class_to_machine_color.json` at the root.
//
// - A machine mask is a greyscale PNG of the image's size: 0 is background, class k of the project
//   (in order, from 1) is the value k, and obj_class_to_machine_color.json maps each class title to
//   [k, k, k], as Supervisely's "Export as masks" writes it. At most 255 classes fit.
// - A human mask is the same drawing in the classes' colours (a palette PNG), on black. Supervisely
//   put the image beside it, blended; that needs the image's pixels, which a writer never reads.
//   A class coloured black is drawn (1, 1, 1), as the original did, so it shows against background.
// - DTL's save_masks may give the colours itself, as the 2018 layer took them: `machineColors`
//   (gt_machine_color) makes the machine mask an RGB PNG with each class in its colour, and
//   obj_class_to_machine_color.json those colours; `humanColors` (gt_human_color) colours the human
//   mask. A class a map does not name is not drawn in that mask; black stays background.
// - Every object is drawn, in its order (later over earlier): rectangles and polygons filled (holes
//   left open), lines one pixel wide, points as a disc of radius 1, bitmaps as they are.
// - Images whose names share a stem in a dataset (`a.jpg`, `a.png`) would share a mask: the later
//   one is renamed `a_1.png` in img/ and ann/ too, so every mask pairs with its image.
import { UniqueNames, pathSegment, stemOf } from '../archive-names.ts';
import { encodePng } from '../png.ts';
import { newRaster, paintObject } from '../raster.ts';
import { type SuperviselyLayout, SuperviselyWriter } from '../supervisely/writer.ts';
import { type ArchiveEntry, DatasetSequence, type ExportProject, type ExportRecord, type FormatWriter, Notices, type WriterNotice, classIndex, colorValue } from '../writer.ts';

export interface MasksWriterOptions {
  includeImages: boolean;
  /** Write masks_machine/ and obj_class_to_machine_color.json. */
  machine: boolean;
  /** Write masks_human/. */
  human: boolean;
  /** The layout of the Supervisely project beside the masks (see the Supervisely writer); default `current`. */
  layout?: SuperviselyLayout | undefined;
  /** Class title → [r, g, b] of the machine mask, instead of the class's number in grey. */
  machineColors?: Readonly<Record<string, readonly number[]>>;
  /** Class title → [r, g, b] of the human mask, instead of the class's own colour. */
  humanColors?: Readonly<Record<string, readonly number[]>>;
}

/** What one mask draws: the value of each class drawn (the others are left out), and the palette of the values. */
interface MaskStyle {
  values: Map<string, number>;
  palette: number[];
}

const rgbValue = ([r, g, b]: readonly number[]) => (r! << 16) | (g! << 8) | b!;

/** The classes a colour map names, each its own value from 1, in the project's class order. */
function styleOf(classes: ExportProject['classes'], colors: Readonly<Record<string, readonly number[]>>, black: number): MaskStyle {
  const values = new Map<string, number>();
  const palette = [0];
  for (const c of classes) {
    const color = Object.hasOwn(colors, c.title) ? colors[c.title] : undefined;
    if (!color || palette.length > 255) continue;
    values.set(c.title, palette.length);
    palette.push(rgbValue(color) || black);
  }
  return { values, palette };
}

const RENAMED = 'images renamed so that no two share a mask (same stem, or case-insensitive file systems) or to be safe in a path';
const UNDRAWN = 'objects of classes past the 255th are not drawn in the masks';

export class MasksWriter implements FormatWriter {
  private readonly project: SuperviselyWriter;
  private readonly classes: ReturnType<typeof classIndex>;
  private readonly sequence = new DatasetSequence();
  private readonly notes = new Notices();
  private readonly humanPalette: number[];
  /** The styles of the masks whose colours the options give. */
  private readonly machineStyle: MaskStyle | null;
  private readonly humanStyle: MaskStyle | null;
  private names = new UniqueNames('stem');

  constructor(
    private readonly definition: ExportProject,
    private readonly options: MasksWriterOptions,
  ) {
    this.project = new SuperviselyWriter(definition, { includeImages: options.includeImages, layout: options.layout });
    this.classes = classIndex(definition);
    this.humanPalette = [0, ...definition.classes.slice(0, 255).map((c) => colorValue(c.color) || 0x010101)];
    this.machineStyle = options.machineColors ? styleOf(definition.classes, options.machineColors, 0) : null;
    this.humanStyle = options.humanColors ? styleOf(definition.classes, options.humanColors, 0x010101) : null;
  }

  /** The record's objects drawn with the style's values, later over earlier. */
  private async draw(record: ExportRecord, style: MaskStyle) {
    const mask = newRaster(record.width, record.height);
    for (const object of record.objects) {
      const value = style.values.get(object.classTitle);
      // The style names only the project's classes: an object of another is left out, as above.
      if (value !== undefined) await paintObject(mask, this.classes.get(object.classTitle)!.shape, object, value);
    }
    return mask;
  }

  async add(record: ExportRecord): Promise<ArchiveEntry[]> {
    if (this.sequence.advance(record.dataset).starts) this.names = new UniqueNames('stem');
    const name = this.names.claim(pathSegment(record.name));
    if (name !== record.name) this.notes.add(RENAMED, record);
    const entries = await this.project.add({ ...record, name });
    if (!this.options.machine && !this.options.human) return entries;
    const { folder } = this.project.placed();
    // The mask of the classes by number, for the masks whose colours the options do not give.
    const mask = newRaster(record.width, record.height);
    const byNumber = (this.options.machine && !this.machineStyle) || (this.options.human && !this.humanStyle);
    for (const object of byNumber ? record.objects : []) {
      // An object of a class the project lacks is left out, and counted, by the project's writer.
      const found = this.classes.get(object.classTitle);
      if (!found) continue;
      if (found.index >= 255) {
        this.notes.add(UNDRAWN, record);
        continue;
      }
      await paintObject(mask, found.shape, object, found.index + 1);
    }
    const png = `${stemOf(name)}.png`;
    if (this.options.machine) {
      const machine = this.machineStyle ? { ...(await this.draw(record, this.machineStyle)), kind: 'rgb' as const, palette: this.machineStyle.palette } : { ...mask, kind: 'grey' as const };
      entries.push({ path: `${folder}/masks_machine/${png}`, body: await encodePng(machine) });
    }
    if (this.options.human) {
      const human = this.humanStyle ? { ...(await this.draw(record, this.humanStyle)), palette: this.humanStyle.palette } : { ...mask, palette: this.humanPalette };
      entries.push({ path: `${folder}/masks_human/${png}`, body: await encodePng({ ...human, kind: 'palette' }) });
    }
    return entries;
  }

  async finish(): Promise<ArchiveEntry[]> {
    const entries = await this.project.finish();
    if (this.options.machine) {
      const style = this.machineStyle;
      const colors = style
        ? Object.fromEntries(this.definition.classes.filter((c) => style.values.has(c.title)).map((c) => [c.title, [...this.options.machineColors![c.title]!]]))
        : Object.fromEntries(this.definition.classes.slice(0, 255).map((c, i) => [c.title, [i + 1, i + 1, i + 1]]));
      entries.push({ path: 'obj_class_to_machine_color.json', body: Buffer.from(JSON.stringify(colors, null, 2)) });
    }
    return entries;
  }

  notices(): WriterNotice[] {
    return [...this.project.notices(), ...this.notes.list()];
  }

  async close(): Promise<void> {
    await this.project.close();
  }
}
