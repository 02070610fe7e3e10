// Writes a Supervisely project: `meta.json`, `<dataset>/img/<name>` and `<dataset>/ann/<name>.json`
// holding exactly the annotation the project stores, which our importer reads back as it was.
//
// The meta is the newer one (tags with value types), so tag values and their kinds survive; the
// annotations name tags as {name, value} for the same reason. Objects carry no `geometryType`: the
// class says the shape.
import type { TagDefinition } from '../canonical.ts';
import { UniqueNames, pathSegment } from '../archive-names.ts';
import { type ArchiveEntry, DatasetSequence, type ExportProject, type ExportRecord, type FormatWriter, Notices, UNKNOWN_CLASS, type WriterNotice, classIndex } from '../writer.ts';
import { defaultClassColor } from './meta-reader.ts';

export interface SuperviselyWriterOptions {
  includeImages: boolean;
}

const RENAMED = 'images renamed to keep their file names apart (case-insensitive file systems) or safe in a path';

export class SuperviselyWriter implements FormatWriter {
  private readonly classes: ReturnType<typeof classIndex>;
  private readonly sequence = new DatasetSequence();
  private readonly folders = new UniqueNames('name');
  private readonly notes = new Notices();
  private folder = '';
  private names = new UniqueNames('name');
  private last = { folder: '', name: '' };

  constructor(
    private readonly project: ExportProject,
    private readonly options: SuperviselyWriterOptions,
  ) {
    this.classes = classIndex(project);
  }

  async add(record: ExportRecord): Promise<ArchiveEntry[]> {
    if (this.sequence.advance(record.dataset).starts) {
      this.folder = this.folders.claim(pathSegment(record.dataset));
      this.names = new UniqueNames('name');
    }
    const name = this.names.claim(pathSegment(record.name));
    if (name !== record.name) this.notes.add(RENAMED, record);
    this.last = { folder: this.folder, name };
    const entries: ArchiveEntry[] = [];
    if (this.options.includeImages) entries.push({ path: `${this.folder}/img/${name}`, body: { blobHash: record.hash } });
    entries.push({ path: `${this.folder}/ann/${name}.json`, body: Buffer.from(JSON.stringify(this.annotation(record))) });
    return entries;
  }

  private annotation(record: ExportRecord) {
    const objects = record.objects.filter((o) => {
      if (this.classes.has(o.classTitle)) return true;
      this.notes.add(UNKNOWN_CLASS, record);
      return false;
    });
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
    return [{ path: 'meta.json', body: Buffer.from(JSON.stringify(projectMeta(this.project), null, 2)) }];
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
