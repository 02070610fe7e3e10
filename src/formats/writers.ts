// The format writers of an export, by format name. See writer.ts for the contract they share.
import { CocoWriter, type CocoWriterOptions } from './coco/writer.ts';
import { MasksWriter, type MasksWriterOptions } from './masks/writer.ts';
import { VocWriter, type VocWriterOptions } from './pascal-voc/writer.ts';
import { SuperviselyWriter, type SuperviselyWriterOptions } from './supervisely/writer.ts';
import type { ExportProject, FormatWriter } from './writer.ts';
import { YoloWriter, type YoloWriterOptions } from './yolo/writer.ts';

export const EXPORT_FORMATS = ['supervisely', 'coco', 'yolo', 'pascal_voc', 'masks'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A format and its options; every format takes `includeImages`. */
export type WriterOptions =
  | ({ format: 'supervisely' } & SuperviselyWriterOptions)
  | ({ format: 'coco' } & CocoWriterOptions)
  | ({ format: 'yolo' } & YoloWriterOptions)
  | ({ format: 'pascal_voc' } & VocWriterOptions)
  | ({ format: 'masks' } & MasksWriterOptions);

export function createFormatWriter(project: ExportProject, options: WriterOptions): FormatWriter {
  switch (options.format) {
    case 'supervisely':
      return new SuperviselyWriter(project, options);
    case 'coco':
      return new CocoWriter(project, options);
    case 'yolo':
      return new YoloWriter(project, options);
    case 'pascal_voc':
      return new VocWriter(project, options);
    case 'masks':
      return new MasksWriter(project, options);
  }
}

export type { ArchiveEntry, EntryBody, ExportObject, ExportProject, ExportRecord, FormatWriter, WriterNotice } from './writer.ts';
