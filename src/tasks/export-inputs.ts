// The export tasks as the queue holds them: their type names and stored inputs. export.service writes
// them when it queues a task, the handlers read them when they run it; this module is what both share,
// so neither imports the other.
import type { Resolved } from '../dtl/validate.ts';
import type { CommonOptions, FormatOptions } from '../services/export-request.ts';

/** An export into an archive, through a format writer or a DTL graph. */
export const EXPORT_TASK = 'export';
/** A DTL graph whose output is a new project (`supervisely`). */
export const DTL_TASK = 'dtl';

/** Images an export reads a page at a time; the `settings.batchSize` of its meta. */
export const EXPORT_PAGE = 200;

/** What a format export task reads from its stored input. */
export interface ExportInput {
  projectId: number;
  /** The datasets to export, in id order. */
  datasetIds: number[];
  /** The version exported instead of the project as it is now (datasetIds is then empty). */
  versionId?: number;
  writer: FormatOptions;
  common: CommonOptions;
  /** Where the archive goes (archiveKey). */
  key: string;
}

/** What a DTL task (an export through a graph, or a graph into a project) reads from its stored input. */
export interface DtlExportInput {
  dtl: { config: unknown; resolved: Resolved; seed: string | number };
  /** Where the archive goes (archiveKey); none for the supervisely output. */
  key: string;
}

export const isDtlExport = (input: unknown): input is DtlExportInput => typeof input === 'object' && input !== null && 'dtl' in input;
