// An export reads its project a page at a time, in many statements: a project or dataset deleted
// meanwhile would leave the pages after the delete empty, and the archive would end short but look
// whole. The source is looked for after every page is read and once more after the last read, before
// the archive is published; a page read before that last look saw the source whole.
import * as exportRepo from '../../repositories/export.repository.ts';
import * as versionExport from '../../repositories/version-export.repository.ts';
import { TaskFailure, type TaskRun } from '../handler.ts';

/** Throws the task's failure when the project or one of the datasets the export reads is gone. */
export async function checkSourceThere(run: TaskRun, projectId: number, datasetIds: readonly number[]): Promise<void> {
  const missing = await exportRepo.missingSource(run.ctx.db.kysely, projectId, datasetIds);
  if (missing === 'project') throw new TaskFailure('NOT_FOUND', `project ${projectId} was deleted while it was being exported; no archive was made`);
  if (missing.length > 0) {
    throw new TaskFailure('NOT_FOUND', `dataset ${missing.join(', ')} of project ${projectId} was deleted while it was being exported; no archive was made`);
  }
}

/** Throws the task's failure when the version an export reads is gone. */
export async function checkVersionThere(run: TaskRun, versionId: number): Promise<void> {
  if (!(await versionExport.versionExists(run.ctx.db.kysely, versionId))) {
    throw new TaskFailure('NOT_FOUND', `version ${versionId} was deleted while it was being exported; no archive was made`);
  }
}
