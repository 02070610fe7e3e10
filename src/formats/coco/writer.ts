// Writes COCO instances in CVAT's layout: one file per dataset, `annotations/instances_<dataset>.json`,
// with the images of that dataset in `images/<dataset>/` and `file_name` relative to that folder (the
// importer reads such a file as the dataset `<dataset>` and finds its images there).
//
// Ids start at 1 in every file: images and annotations in record order, categories in the project's
// class order (the same in every file, so the files of one export agree). Image and annotation
// entries are spooled to disk as they come and the file is streamed from there when the dataset
// ends: memory holds one image's annotations at a time, however large the dataset. Object tags
// become the non-standard `attributes` that CVAT writes (a tag without a value as `true`); image
// tags and descriptions have no place in COCO.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { UniqueNames, pathSegment } from '../archive-names.ts';
import { TextSpool } from '../spool.ts';
import { type ArchiveEntry, DatasetSequence, type ExportObject, type ExportProject, type ExportRecord, type FormatWriter, Notices, UNKNOWN_CLASS, type WriterNotice, classIndex, classNumber } from '../writer.ts';
import { cocoGeometry } from './geometry.ts';

export interface CocoWriterOptions {
  includeImages: boolean;
  /** A folder for the spool; the writer makes one of its own inside and removes it on close. */
  tempDir: string;
  /** The `date_created` and `year` of `info`; now when not given. */
  now?: Date;
}

const RENAMED = 'images renamed to keep their file names apart (case-insensitive file systems) or safe in a path';

interface OpenDataset {
  folder: string;
  names: UniqueNames;
  images: TextSpool;
  annotations: TextSpool;
  imageCount: number;
  annotationCount: number;
}

export class CocoWriter implements FormatWriter {
  private readonly classes: ReturnType<typeof classIndex>;
  private readonly sequence = new DatasetSequence();
  private readonly folders = new UniqueNames('name');
  private readonly notes = new Notices();
  private readonly spools = new Set<TextSpool>();
  private spoolDir: Promise<string> | null = null;
  private current: OpenDataset | null = null;
  private readonly header: string;
  private readonly categories: string;

  constructor(
    project: ExportProject,
    private readonly options: CocoWriterOptions,
  ) {
    this.classes = classIndex(project);
    const now = options.now ?? new Date();
    const info = { description: project.title, version: '1.0', year: now.getUTCFullYear(), contributor: '', url: '', date_created: now.toISOString() };
    this.header = `{"info":${JSON.stringify(info)},"licenses":[],"images":[`;
    this.categories = JSON.stringify(project.classes.map((c, i) => ({ id: classNumber(c, i), name: c.title, supercategory: '' })));
  }

  async add(record: ExportRecord): Promise<ArchiveEntry[]> {
    const entries: ArchiveEntry[] = [];
    if (this.sequence.advance(record.dataset).starts) {
      if (this.current) entries.push(await this.endDataset(this.current));
      this.current = await this.startDataset(record.dataset);
    }
    const dataset = this.current!;
    const fileName = dataset.names.claim(pathSegment(record.name));
    if (fileName !== record.name) this.notes.add(RENAMED, record);
    const imageId = ++dataset.imageCount;
    const image = { id: imageId, width: record.width, height: record.height, file_name: fileName };
    await dataset.images.write((imageId > 1 ? ',' : '') + JSON.stringify(image));
    for (const object of record.objects) {
      const fields = await this.annotation(object, record);
      if (!fields) continue;
      const id = ++dataset.annotationCount;
      await dataset.annotations.write((id > 1 ? ',' : '') + JSON.stringify({ id, image_id: imageId, ...fields }));
    }
    if (this.options.includeImages) entries.push({ path: `images/${dataset.folder}/${fileName}`, body: { blobHash: record.hash } });
    return entries;
  }

  /** The annotation's fields after its ids, or null (with a notice) for an object COCO cannot hold. */
  private async annotation(object: ExportObject, record: ExportRecord): Promise<object | null> {
    const found = this.classes.get(object.classTitle);
    if (!found) {
      this.notes.add(UNKNOWN_CLASS, record);
      return null;
    }
    const geometry = await cocoGeometry(object, found.shape, record.width, record.height);
    if ('skipped' in geometry) {
      this.notes.add(geometry.skipped, record);
      return null;
    }
    // The reader makes the tag `iscrowd` of the field of that name, not of an attribute: a crowd
    // polygon (as COCO's own files have) keeps its flag in the field, or it would be lost.
    const crowd = object.tags.some((t) => t.name === 'iscrowd');
    const attributes = object.tags.filter((t) => t.name !== 'iscrowd').map((t) => [t.name, t.value ?? true] as const);
    return { category_id: found.number, ...geometry, ...(crowd ? { iscrowd: 1 } : {}), ...(attributes.length > 0 ? { attributes: Object.fromEntries(attributes) } : {}) };
  }

  private async startDataset(name: string): Promise<OpenDataset> {
    this.spoolDir ??= fsp.mkdtemp(path.join(this.options.tempDir, 'coco-'));
    const dir = await this.spoolDir;
    const folder = this.folders.claim(pathSegment(name));
    // Spool names by order, not by dataset name: the folder name may hold anything a path allows.
    const n = this.spools.size;
    const images = await TextSpool.create(dir, `${n}.images`);
    this.spools.add(images);
    const annotations = await TextSpool.create(dir, `${n + 1}.annotations`);
    this.spools.add(annotations);
    return { folder, names: new UniqueNames('name'), images, annotations, imageCount: 0, annotationCount: 0 };
  }

  private async endDataset(dataset: OpenDataset): Promise<ArchiveEntry> {
    await dataset.images.end();
    await dataset.annotations.end();
    return { path: `annotations/instances_${dataset.folder}.json`, body: { stream: () => this.document(dataset) } };
  }

  /** The file's text: what is in memory around what was spooled. The spool goes once it is read. */
  private async *document(dataset: OpenDataset): AsyncGenerator<Buffer> {
    try {
      yield Buffer.from(this.header);
      yield* dataset.images.read();
      yield Buffer.from('],"annotations":[');
      yield* dataset.annotations.read();
      yield Buffer.from(`],"categories":${this.categories}}`);
    } finally {
      await dataset.images.remove();
      await dataset.annotations.remove();
    }
  }

  async finish(): Promise<ArchiveEntry[]> {
    if (!this.current) return [];
    const last = this.current;
    this.current = null;
    return [await this.endDataset(last)];
  }

  notices(): WriterNotice[] {
    return this.notes.list();
  }

  async close(): Promise<void> {
    for (const spool of this.spools) await spool.remove();
    if (this.spoolDir) await fsp.rm(await this.spoolDir, { recursive: true, force: true });
  }
}
