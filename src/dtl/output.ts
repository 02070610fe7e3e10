// The output layer of an archive: items become the ExportRecords the format writers take, and the
// writers' entries go into the export's zip. An item's image is copied from the store while its
// pixels are unchanged; otherwise it is encoded here (PNG, or JPEG for a .jpg name) and the entry
// carries the bytes.
//
// The writers need each output dataset's items together. When the graph may interleave them (a
// `dataset` layer, several data layers), records are spooled to disk per dataset, with the bytes of
// changed images beside them, and handed to the writer dataset by dataset at the end.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import type { CanonicalObject, ClassDefinition } from '../formats/canonical.ts';
import type { ArchiveEntry, ExportProject, ExportRecord, FormatWriter, WriterNotice } from '../formats/writer.ts';
import { type WriterOptions, createFormatWriter } from '../formats/writers.ts';
import { loadSharp } from '../sharp.ts';
import type { OutputAction } from './config.ts';
import type { DtlItem, RawImage } from './item.ts';
import type { Plan } from './validate.ts';
import { overlay } from './visualize.ts';

/** The time every entry of a DTL archive (and COCO's `date_created`) carries, so that one graph over the same data gives the same bytes. */
export const DTL_ARCHIVE_TIME = new Date('1980-01-01T00:00:00Z');

/** A stand-in hash for bytes encoded here, which the entries of the writer name until they are swapped for the bytes. */
const ENCODED = '\u0000dtl-encoded:';

type Settings = Record<string, unknown>;
const flag = (settings: Settings, name: string, fallback: boolean): boolean => (typeof settings[name] === 'boolean' ? (settings[name] as boolean) : fallback);

/** The format writer's options of an archive output layer. */
export function outputWriterOptions(action: OutputAction, settings: Settings, tempDir: string): WriterOptions {
  const includeImages = flag(settings, 'images', true);
  const layout = settings.layout === '2018' ? '2018' : 'current';
  switch (action) {
    case 'save':
      return { format: 'supervisely', includeImages, layout };
    case 'save_masks':
      return {
        format: 'masks',
        includeImages,
        machine: flag(settings, 'masks_machine', true),
        human: flag(settings, 'masks_human', true),
        layout,
        ...(settings.gt_machine_color ? { machineColors: settings.gt_machine_color as Record<string, number[]> } : {}),
        ...(settings.gt_human_color ? { humanColors: settings.gt_human_color as Record<string, number[]> } : {}),
      };
    case 'coco':
      return { format: 'coco', includeImages, tempDir, now: DTL_ARCHIVE_TIME };
    case 'yolo':
      return { format: 'yolo', includeImages, task: settings.task === 'segment' ? 'segment' : 'detect', splitsFromDatasets: flag(settings, 'splits_from_datasets', false) };
    case 'pascal_voc':
      return { format: 'pascal_voc', includeImages, segmentation: flag(settings, 'segmentation', false) };
    case 'supervisely':
      throw new Error('the supervisely output writes a project, not an archive');
  }
}

/** The pixels encoded for a file of this name: JPEG for .jpg and .jpeg, else PNG. */
export async function encodeImage(raw: RawImage, name: string): Promise<Buffer> {
  const sharp = await loadSharp();
  const image = sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
  return /\.jpe?g$/i.test(name) ? image.jpeg({ quality: 95 }).toBuffer() : image.png().toBuffer();
}

/** `name_<10 chars>` before the extension: the same seed, dataset and name give the same one. */
export function clashName(seed: string | number, dataset: string, name: string, attempt: number): string {
  const digest = createHash('sha256').update(`${seed}\u0000${dataset}\u0000${name}\u0000${attempt}`).digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let suffix = '';
  for (let i = 0; i < 10; i++) suffix += alphabet[digest[i]! % alphabet.length];
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}_${suffix}${name.slice(dot)}` : `${name}_${suffix}`;
}

/** The names taken in each output dataset; a name taken already becomes clashName's. */
export class OutputNames {
  private readonly taken = new Map<string, Set<string>>();

  constructor(private readonly seed: string | number) {}

  claim(dataset: string, name: string): string {
    let taken = this.taken.get(dataset);
    if (!taken) this.taken.set(dataset, (taken = new Set()));
    let claimed = name;
    for (let attempt = 0; taken.has(claimed); attempt++) claimed = clashName(this.seed, dataset, name, attempt);
    taken.add(claimed);
    return claimed;
  }
}

const exportObject = (o: CanonicalObject) => ({ classTitle: o.classTitle, description: o.description, tags: o.tags, bitmap: o.bitmap && { origin: o.bitmap.origin, data: o.bitmap.data }, points: o.points });

interface SpooledRecord {
  record: ExportRecord;
  /** The file of encoded bytes, for an image whose pixels changed. */
  bytes?: string;
  /** The file of the visualize overlay. */
  visual?: string;
  /** The byte size of the stored blob the record names, so that it may be read ahead. */
  size?: number;
}

/** Spooled records handed to the writer together, so their images can be read ahead. */
const SPOOL_BATCH = 200;

/** An item made ready for the writer: its record, and the bytes encoded for it here. */
export interface Prepared {
  record: ExportRecord;
  bytes?: Buffer;
  /** The save layer's visualize overlay. */
  visual?: Buffer;
}

export class ArchiveOutput {
  private readonly writer: FormatWriter;
  private readonly names: OutputNames;
  private readonly onlyAnnotated: boolean;
  private readonly includeImages: boolean;
  /** The output classes by title, when the save layer draws overlays. */
  private readonly visualize: Map<string, ClassDefinition> | null;
  /** Regrouping: the spool file of each output dataset, in the order they first came. */
  private readonly spools = new Map<string, { file: string; stream: fs.WriteStream }>();
  private encoded = 0;
  private spooledImages = 0;

  constructor(
    private readonly plan: Plan,
    private readonly seed: string | number,
    private readonly tempDir: string,
  ) {
    this.names = new OutputNames(seed);
    const { action, settings, classes, name } = plan.output;
    const project: ExportProject = { title: name, classes: classes.classes, tags: classes.tags };
    this.writer = createFormatWriter(project, outputWriterOptions(action, settings, tempDir));
    this.onlyAnnotated = flag(settings, 'only_annotated', false);
    this.includeImages = flag(settings, 'images', true);
    this.visualize = action === 'save' && flag(settings, 'visualize', false) ? new Map(classes.classes.map((c) => [c.title, c])) : null;
  }

  private claim(dataset: string, name: string): string {
    return this.names.claim(dataset, name);
  }

  /**
   * The records of the items one image became, with the bytes of those whose pixels changed, or
   * nothing for items left out. Encoding happens here so that a failure skips the image whole.
   */
  async prepare(items: readonly DtlItem[]): Promise<Prepared[]> {
    const prepared: Prepared[] = [];
    for (const item of items) {
      if (this.onlyAnnotated && item.annotation.objects.length === 0) continue;
      const { width, height } = item.annotation.size;
      const bytes = item.image.hash === null && this.includeImages ? await encodeImage(await item.image.raw(), item.name) : undefined;
      const visual = this.visualize ? await overlay(item, this.visualize) : undefined;
      prepared.push({
        record: {
          dataset: item.dataset,
          name: item.name,
          width,
          height,
          hash: item.image.hash ?? `${ENCODED}${this.encoded++}`,
          description: item.annotation.description,
          tags: item.annotation.tags,
          objects: item.annotation.objects.map(exportObject),
        },
        ...(bytes ? { bytes } : {}),
        ...(visual ? { visual } : {}),
      });
    }
    return prepared;
  }

  /** The archive entries of prepared records; with regrouping they are spooled and answer none until `finish`. */
  async add(prepared: readonly Prepared[], sizes: ReadonlyMap<string, number> = new Map()): Promise<ArchiveEntry[]> {
    const entries: ArchiveEntry[] = [];
    for (const { record, bytes, visual } of prepared) {
      const named = { ...record, name: this.claim(record.dataset, record.name) };
      if (this.plan.regroup) await this.spool(named, bytes, visual, sizes.get(named.hash));
      else entries.push(...withVisual(swapBytes(await this.writer.add(named), bytes && new Map([[named.hash, () => bytes]])), visual && (() => visual)));
    }
    return entries;
  }

  private async spool(record: ExportRecord, bytes: Buffer | undefined, visual: Buffer | undefined, size: number | undefined): Promise<void> {
    let spool = this.spools.get(record.dataset);
    if (!spool) {
      const file = path.join(this.tempDir, `dataset-${this.spools.size}.jsonl`);
      spool = { file, stream: fs.createWriteStream(file) };
      this.spools.set(record.dataset, spool);
    }
    const line: SpooledRecord = { record, ...(size !== undefined ? { size } : {}) };
    if (bytes) {
      line.bytes = path.join(this.tempDir, `image-${this.spooledImages++}.bin`);
      await fsp.writeFile(line.bytes, bytes);
    }
    if (visual) {
      line.visual = path.join(this.tempDir, `visual-${this.spooledImages++}.png`);
      await fsp.writeFile(line.visual, visual);
    }
    if (!spool.stream.write(`${JSON.stringify(line)}\n`)) await new Promise<void>((resolve) => spool.stream.once('drain', () => resolve()));
  }

  /**
   * The spooled datasets one after another, then the writer's last entries; `emit` writes each
   * batch, given the sizes of the stored blobs its entries name.
   */
  async finish(emit: (entries: ArchiveEntry[], sizes: ReadonlyMap<string, number>) => Promise<void>): Promise<void> {
    for (const spool of this.spools.values()) {
      await new Promise<void>((resolve, reject) => spool.stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
      const lines = readline.createInterface({ input: fs.createReadStream(spool.file), crlfDelay: Infinity });
      let batch: ArchiveEntry[] = [];
      let sizes = new Map<string, number>();
      let records = 0;
      for await (const line of lines) {
        if (line === '') continue;
        const { record, bytes, visual, size } = JSON.parse(line) as SpooledRecord;
        const entries = swapBytes(await this.writer.add(record), bytes ? new Map([[record.hash, () => fsp.readFile(bytes)]]) : undefined);
        batch.push(...withVisual(entries, visual ? () => fsp.readFile(visual) : undefined));
        if (size !== undefined) sizes.set(record.hash, size);
        if (++records % SPOOL_BATCH === 0) {
          await emit(batch, sizes);
          batch = [];
          sizes = new Map();
        }
      }
      await emit(batch, sizes);
    }
    await emit(await this.writer.finish(), new Map());
  }

  notices(): WriterNotice[] {
    return this.writer.notices();
  }

  async close(): Promise<void> {
    for (const spool of this.spools.values()) spool.stream.destroy();
    await this.writer.close();
  }
}

/** The overlay beside the Supervisely annotation entry: `<dataset>/visualize/<name>.png`. */
function withVisual(entries: ArchiveEntry[], visual: (() => Buffer | Promise<Buffer>) | undefined): ArchiveEntry[] {
  if (!visual) return entries;
  const annotation = entries.find((e) => /\/ann\/[^/]+\.json$/.test(e.path));
  if (!annotation) return entries;
  const [folder, , file] = annotation.path.split('/') as [string, string, string];
  const path = `${folder}/visualize/${file.slice(0, -'.json'.length)}.png`;
  return [
    ...entries,
    {
      path,
      body: {
        stream: async function* () {
          yield await visual();
        },
      },
    },
  ];
}

/** The entries with the stand-in hashes of encoded images swapped for their bytes. */
function swapBytes(entries: ArchiveEntry[], encoded: Map<string, () => Buffer | Promise<Buffer>> | undefined): ArchiveEntry[] {
  if (!encoded) return entries;
  return entries.map((entry) => {
    const body = entry.body;
    if (Buffer.isBuffer(body) || !('blobHash' in body)) return entry;
    const bytes = encoded.get(body.blobHash);
    if (!bytes) return entry;
    return {
      path: entry.path,
      body: {
        stream: async function* () {
          yield await bytes();
        },
      },
    };
  });
}
