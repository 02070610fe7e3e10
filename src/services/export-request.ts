// An export request checked and made whole: the format, its options with their defaults, and the
// options every format shares. Anything unknown or mistyped is a 400 naming the field, before a task
// exists.
import { validation } from '../errors.ts';
import { SUPERVISELY_LAYOUTS } from '../formats/supervisely/writer.ts';
import { EXPORT_FORMATS, type ExportFormat, type WriterOptions } from '../formats/writers.ts';

/** The options every format takes. */
export interface CommonOptions {
  includeImages: boolean;
  /** Leave out images without objects. */
  onlyAnnotated: boolean;
  /** Keep only objects of these classes (null: every class). */
  classes: string[] | null;
}

/** Writer options without the ones the export supplies itself (the COCO spool folder). */
export type FormatOptions = { format: ExportFormat } & Record<string, unknown>;

export interface ExportRequest {
  projectId?: number | undefined;
  datasetIds?: number[] | undefined;
  /** A version of the project: its id, or its name. */
  version?: number | string | undefined;
  format?: string | undefined;
  options?: Record<string, unknown> | undefined;
  /** A DTL graph instead of the fields above. */
  config?: unknown[] | undefined;
}

type OptionKind = { type: 'boolean'; default: boolean } | { type: 'enum'; values: readonly string[]; default: string };

/** The layout of a Supervisely project (supervisely, and beside the masks of masks). */
const LAYOUT: OptionKind = { type: 'enum', values: SUPERVISELY_LAYOUTS, default: 'current' };

/** Each format's own options (beyond includeImages), with their defaults. */
const FORMAT_OPTIONS: Record<ExportFormat, Record<string, OptionKind>> = {
  supervisely: { layout: LAYOUT },
  coco: {},
  yolo: { task: { type: 'enum', values: ['detect', 'segment'], default: 'detect' }, splitsFromDatasets: { type: 'boolean', default: false } },
  pascal_voc: { segmentation: { type: 'boolean', default: false } },
  masks: { machine: { type: 'boolean', default: true }, human: { type: 'boolean', default: true }, layout: LAYOUT },
};

const COMMON = ['includeImages', 'onlyAnnotated', 'classes'];

const fail = (message: string, field: string) => validation(message, { field });

export function isExportFormat(format: string): format is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(format);
}

/** The format's options and the common ones, defaults filled in. */
export function parseExportOptions(format: string, options: Record<string, unknown> = {}): { writer: FormatOptions; common: CommonOptions } {
  if (!isExportFormat(format)) throw fail(`format must be one of ${EXPORT_FORMATS.join(', ')}`, 'format');
  const own = FORMAT_OPTIONS[format];
  for (const name of Object.keys(options)) {
    if (!COMMON.includes(name) && !Object.hasOwn(own, name)) {
      const known = [...COMMON, ...Object.keys(own)].join(', ');
      throw fail(`unknown option "${name}" for format ${format}; known: ${known}`, `options.${name}`);
    }
  }
  const boolean = (name: string, fallback: boolean): boolean => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw fail(`${name} must be true or false`, `options.${name}`);
    return value;
  };
  let classes: string[] | null = null;
  if (options.classes !== undefined) {
    if (!Array.isArray(options.classes) || options.classes.some((c) => typeof c !== 'string')) throw fail('classes must be a list of class titles', 'options.classes');
    classes = [...new Set(options.classes as string[])];
  }
  const writer: FormatOptions = { format };
  for (const [name, kind] of Object.entries(own)) {
    if (kind.type === 'boolean') writer[name] = boolean(name, kind.default);
    else {
      const value = options[name] ?? kind.default;
      if (typeof value !== 'string' || !kind.values.includes(value)) throw fail(`${name} must be one of ${kind.values.join(', ')}`, `options.${name}`);
      writer[name] = value;
    }
  }
  const common = { includeImages: boolean('includeImages', true), onlyAnnotated: boolean('onlyAnnotated', false), classes };
  writer.includeImages = common.includeImages;
  return { writer, common };
}

/** The writer options a task stored, with the export's own parts added. */
export function writerOptions(stored: FormatOptions, tempDir: string): WriterOptions {
  return { ...stored, tempDir } as unknown as WriterOptions;
}

/** The DTL save layer of each format (Supervisely's names where it had one). */
export const SAVE_LAYER: Record<ExportFormat, string> = {
  supervisely: 'save',
  masks: 'save_masks',
  coco: 'coco',
  yolo: 'yolo',
  pascal_voc: 'pascal_voc',
};
