// Writes a Supervisely project: `meta.json`, `<dataset>/img/<name>` and `<dataset>/ann/<name>.json`
// holding exactly the annotation the project stores, which our importer reads back as it was.
//
// The meta is the newer one (tags with value types), so tag values and their kinds survive; the
// annotations name tags as {name, value} for the same reason. Objects carry no `geometryType`: the
// class says the shape.
//
// The 2018 layout (`layout: '2018'`) is what the 2018 Supervisely SDK reads: a meta of `classes`,
// `tags_images` and `tags_objects` (lists of names), tags as plain names (the v1 record's form, from
// toAnnotationObject), and `<dataset>/ann/<stem>.json` beside `<dataset>/img/<stem>.<ext>`, since
// that reader pairs an image and its annotation by the name without extension. A tag's value has no
// place there: it is left out and counted in a notice.
import { type AnnotationObject, type TagDefinition, toAnnotationObject } from '../canonical.ts';
import { UniqueNames, pathSegment, stemOf } from '../archive-names.ts';
import { type ArchiveEntry, DatasetSequence, type ExportObject, type ExportProject, type ExportRecord, type FormatWriter, Notices, UNKNOWN_CLASS, type WriterNotice, classIndex } from '../writer.ts';
import { legacyReadableMask } from './bitmap.ts';
import { defaultClassColor } from './meta-reader.ts';

export const SUPERVISELY_LAYOUTS = ['current', '2018'] as const;
export type SuperviselyLayout = (typeof SUPERVISELY_LAYOUTS)[number];

export interface SuperviselyWriterOptions {
  includeImages: boolean;
  /** `current` (the default) or `2018`. */
  layout?: SuperviselyLayout | undefined;
}

const RENAMED = 'images renamed to keep their file names apart (case-insensitive file systems) or safe in a path';
const RENAMED_2018 = 'images renamed so that no two share an annotation file (same stem, or case-insensitive file systems) or to be safe in a path';
export const TAG_VALUES_LEFT_OUT = 'tag values left out: the 2018 layout names tags only';

export class SuperviselyWriter implements FormatWriter {
  private readonly classes: ReturnType<typeof classIndex>;
  private readonly sequence = new DatasetSequence();
  private readonly folders = new UniqueNames('name');
  private readonly notes = new Notices();
  private readonly legacy: boolean;
  private folder = '';
  private names: UniqueNames;
  private last = { folder: '', name: '' };

  constructor(
    private readonly project: ExportProject,
    private readonly options: SuperviselyWriterOptions,
  ) {
    this.classes = classIndex(project);
    this.legacy = options.layout === '2018';
    this.names = this.folderNames();
  }

  /** The names of one dataset's images: in 2018, apart by stem too, as their annotations are named by it. */
  private folderNames(): UniqueNames {
    return new UniqueNames(this.legacy ? 'stem' : 'name');
  }

  async add(record: ExportRecord): Promise<ArchiveEntry[]> {
    if (this.sequence.advance(record.dataset).starts) {
      this.folder = this.folders.claim(pathSegment(record.dataset));
      this.names = this.folderNames();
    }
    const name = this.names.claim(this.legacy ? pythonStemSafe(pathSegment(record.name)) : pathSegment(record.name));
    if (name !== record.name) this.notes.add(this.legacy ? RENAMED_2018 : RENAMED, record);
    this.last = { folder: this.folder, name };
    const entries: ArchiveEntry[] = [];
    if (this.options.includeImages) entries.push({ path: `${this.folder}/img/${name}`, body: { blobHash: record.hash } });
    const objects = this.knownObjects(record);
    const annotation = this.legacy
      ? { path: `${this.folder}/ann/${stemOf(name)}.json`, body: await this.legacyAnnotation(record, objects) }
      : { path: `${this.folder}/ann/${name}.json`, body: this.annotation(record, objects) };
    entries.push({ path: annotation.path, body: Buffer.from(JSON.stringify(annotation.body)) });
    return entries;
  }

  private knownObjects(record: ExportRecord): ExportObject[] {
    return record.objects.filter((o) => {
      if (this.classes.has(o.classTitle)) return true;
      this.notes.add(UNKNOWN_CLASS, record);
      return false;
    });
  }

  /**
   * The 2018 annotation: the v1 record's members but `name`, tags by name. A bitmap the 2018 reader
   * could not decode (RGB, or a palette without transparency) is written again as 1-bit greyscale.
   */
  private async legacyAnnotation(record: ExportRecord, objects: ExportObject[]) {
    if (record.tags.some((t) => t.value !== null) || objects.some((o) => o.tags.some((t) => t.value !== null))) this.notes.add(TAG_VALUES_LEFT_OUT, record);
    const written: AnnotationObject[] = [];
    for (const o of objects) {
      const bitmap = o.bitmap && { origin: o.bitmap.origin, data: await legacyReadableMask(o.bitmap.data) };
      written.push(toAnnotationObject({ ...o, bitmap }));
    }
    return {
      description: record.description,
      tags: record.tags.map((t) => t.name),
      size: { width: record.width, height: record.height },
      objects: written,
    };
  }

  private annotation(record: ExportRecord, objects: ExportObject[]) {
    return {
      description: record.description,
      tags: record.tags.map((t) => ({ name: t.name, value: t.value })),
      size: { width: record.width, height: record.height },
      objects: objects.map((o) => ({
        classTitle: o.classTitle,
        description: o.description,
        tags: o.tags.map((t) => ({ name: t.name, value: t.value })),
        bitmap: o.bitmap ? { origin: o.bitmap.origin, data: o.bitmap.data } : null,
        points: { exterior: o.points.exterior, interior: o.points.interior },
      })),
    };
  }

  /** The dataset folder and file name of the last record added, for files written beside it. */
  placed(): { folder: string; name: string } {
    return { ...this.last };
  }

  async finish(): Promise<ArchiveEntry[]> {
    const meta = this.legacy ? legacyProjectMeta(this.project) : projectMeta(this.project);
    return [{ path: 'meta.json', body: Buffer.from(JSON.stringify(meta, null, 2)) }];
  }

  notices(): WriterNotice[] {
    return this.notes.list();
  }

  async close(): Promise<void> {}
}

/** The newer meta.json: classes, and each tag once with the scopes it applies to. */
export function projectMeta(project: ExportProject) {
  const tags = new Map<string, { tag: TagDefinition; images: boolean; figures: boolean }>();
  for (const tag of project.tags) {
    const entry = tags.get(tag.title) ?? { tag, images: false, figures: false };
    entry[tag.scope] = true;
    tags.set(tag.title, entry);
  }
  return {
    classes: project.classes.map((c) => ({ title: c.title, shape: c.shape, color: c.color })),
    tags: [...tags.values()].map(({ tag, images, figures }) => ({
      name: tag.title,
      value_type: tag.valueType,
      color: defaultClassColor(tag.title),
      applicable_type: images && figures ? 'all' : images ? 'imagesOnly' : 'objectsOnly',
      ...(tag.values ? { values: [...tag.values] } : {}),
    })),
  };
}

/**
 * The 2018 reader splits names with Python's os.path.splitext, which takes no extension after leading
 * dots only (`..jpg` has none), where stemOf sees one: such dots become underscores (`_.jpg`), so
 * both split the name alike and the annotation `_.json` is found.
 */
const pythonStemSafe = (name: string): string => name.replace(/^\.+(?=\.[^.]*$)/, (dots) => '_'.repeat(dots.length));

/** The 2018 meta.json: classes, and the names of the image tags and of the object tags. */
export function legacyProjectMeta(project: ExportProject) {
  const names = (scope: TagDefinition['scope']) => [...new Set(project.tags.filter((t) => t.scope === scope).map((t) => t.title))];
  return {
    classes: project.classes.map((c) => ({ title: c.title, shape: c.shape, color: c.color })),
    tags_images: names('images'),
    tags_objects: names('figures'),
  };
}
