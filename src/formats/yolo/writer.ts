// Writes an Ultralytics YOLO dataset: `images/<split>/<name>`, `labels/<split>/<stem>.txt` and
// `data.yaml` (`path`, `train`, `val`, `test` when there is one, `names: {0: …}`).
//
// Splits: with `splitsFromDatasets`, each dataset is a folder of its own and a split by its name
// (`train`; `val`, `valid` or `validation`; `test`); datasets of other names are trained on, listed
// under `train` beside it. Otherwise every image goes to the one split `train`. Ultralytics needs a
// `val`: without a validation dataset, `val` names the training folders. Only folders that hold an
// image are named. Class ids are the project's classes in order, from 0, all of them named; a
// version's classes have their stable index less one (its indices start at 1: 0 is masks' background).
//
// Every image gets a label file, empty when none of its objects is a box or polygon: Ultralytics
// counts it as a background image, and the labels list every image even when images are left out.
// Images whose names share a stem in one folder (`a.jpg`, `a.png`) would share a label file: the
// later one is renamed `a_1.png`, its labels `a_1.txt`.
import { stringify } from 'yaml';
import { UniqueNames, pathSegment, stemOf } from '../archive-names.ts';
import { type ArchiveEntry, DatasetSequence, type ExportProject, type ExportRecord, type FormatWriter, Notices, UNKNOWN_CLASS, type WriterNotice, classIndex, classNumber } from '../writer.ts';
import { type YoloTask, yoloRows } from './rows.ts';

export interface YoloWriterOptions {
  includeImages: boolean;
  task: YoloTask;
  splitsFromDatasets: boolean;
}

type Role = 'train' | 'val' | 'test';

const RENAMED = 'images renamed so that no two share a label file (same stem, or case-insensitive file systems) or to be safe in a path';

/** The split a dataset's name says it is; any other name is trained on. */
function roleOf(dataset: string): Role {
  const name = dataset.trim().toLowerCase();
  if (name === 'val' || name === 'valid' || name === 'validation') return 'val';
  if (name === 'test' || name === 'testing') return 'test';
  return 'train';
}

export class YoloWriter implements FormatWriter {
  private readonly classes: ReturnType<typeof classIndex>;
  private readonly sequence = new DatasetSequence();
  private readonly folders = new UniqueNames('name');
  private readonly notes = new Notices();
  /** The folders written so far, with their role. */
  private readonly splits = new Map<string, Role>();
  private folder = '';
  private names = new UniqueNames('stem');

  constructor(
    private readonly project: ExportProject,
    private readonly options: YoloWriterOptions,
  ) {
    this.classes = classIndex(project);
  }

  async add(record: ExportRecord): Promise<ArchiveEntry[]> {
    if (this.sequence.advance(record.dataset).starts && (this.options.splitsFromDatasets || this.splits.size === 0)) {
      this.folder = this.options.splitsFromDatasets ? this.folders.claim(pathSegment(record.dataset)) : 'train';
      this.names = new UniqueNames('stem');
      this.splits.set(this.folder, this.options.splitsFromDatasets ? roleOf(record.dataset) : 'train');
    }
    const name = this.names.claim(pathSegment(record.name));
    if (name !== record.name) this.notes.add(RENAMED, record);
    const rows: string[] = [];
    for (const object of record.objects) {
      const found = this.classes.get(object.classTitle);
      if (!found) {
        this.notes.add(UNKNOWN_CLASS, record);
        continue;
      }
      const written = await yoloRows(object, found.shape, found.number - 1, record.width, record.height, this.options.task);
      rows.push(...written.rows);
      for (const notice of written.notices) this.notes.add(notice, record);
    }
    const entries: ArchiveEntry[] = [];
    if (this.options.includeImages) entries.push({ path: `images/${this.folder}/${name}`, body: { blobHash: record.hash } });
    entries.push({ path: `labels/${this.folder}/${stemOf(name)}.txt`, body: Buffer.from(rows.map((r) => `${r}\n`).join('')) });
    return entries;
  }

  async finish(): Promise<ArchiveEntry[]> {
    const folders = (role: Role) => [...this.splits].filter(([, r]) => r === role).map(([folder]) => `images/${folder}`);
    const [train, val, test] = [folders('train'), folders('val'), folders('test')];
    const trainOn = train.length > 0 ? train : val.length > 0 ? val : test;
    const value = (list: string[]) => (list.length === 1 ? list[0]! : list);
    const doc = new Map<string, unknown>([['path', '.']]);
    if (trainOn.length > 0) {
      doc.set('train', value(trainOn));
      doc.set('val', value(val.length > 0 ? val : trainOn));
      if (test.length > 0) doc.set('test', value(test));
    }
    doc.set('names', new Map(this.project.classes.map((c, i) => [classNumber(c, i) - 1, c.title])));
    const comment =
      '# `path` is the folder of this file: recent Ultralytics versions read it so; older ones read it\n' +
      '# from the working directory, so give the absolute path of this folder there.\n';
    return [{ path: 'data.yaml', body: Buffer.from(comment + stringify(doc)) }];
  }

  notices(): WriterNotice[] {
    return this.notes.list();
  }

  async close(): Promise<void> {}
}
