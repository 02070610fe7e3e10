// `annostore import`: runs a folder import for the command line and turns its outcome into a message
// and an exit code (EXIT_CODES).
import { AnnostoreClient, type OnConflictT } from './client.ts';
import { ApiError, ConnectionError } from './errors.ts';
import { LAYOUTS, PRESETS } from './folder-format.ts';
import { FolderError } from './folder.ts';
import { EXIT_CODES, type ImportSummary, ImportUsageError, UploadRejectedError, importFolder } from './import-folder.ts';
import { type Progress, bytes, createProgress } from './progress.ts';

export interface ImportCommandOptions {
  dir: string;
  url: string;
  key: string;
  project?: string;
  projectId?: number;
  onConflict?: OnConflictT;
  preset?: number;
  concurrency: number;
  batchFiles?: number;
  json: boolean;
}

/** A message for a person and the exit code for a script. */
export function explain(error: unknown, url: string): { code: number; message: string } {
  if (error instanceof FolderError || error instanceof UploadRejectedError) return { code: EXIT_CODES.folder, message: error.message };
  if (error instanceof ImportUsageError) return { code: EXIT_CODES.usage, message: error.message };
  if (error instanceof ConnectionError) {
    return { code: EXIT_CODES.unreachable, message: `${error.message}\nIs the server running there? Check --url (or ANNOSTORE_URL).` };
  }
  if (error instanceof ApiError) {
    if (error.status === 401) {
      return { code: EXIT_CODES.auth, message: `authentication failed: ${url} refused the key (${error.code}: ${error.message}). Check --key (or ANNOSTORE_API_KEY).` };
    }
    if (error.status === 403) {
      return { code: EXIT_CODES.auth, message: `not allowed: the key may not import (${error.code}: ${error.message}); a read-only key cannot write.` };
    }
    return { code: EXIT_CODES.failed, message: `the server refused ${error.request}: ${error.status} ${error.code}: ${error.message}` };
  }
  return { code: EXIT_CODES.failed, message: error instanceof Error ? error.message : String(error) };
}

function report(summary: ImportSummary, out: NodeJS.WritableStream): void {
  const how = summary.status === 'finished' ? 'finished' : `ended as ${summary.status}`;
  out.write(
    `import task ${summary.taskId} ${how}: project ${summary.projectId}, ${summary.imagesUploaded} images uploaded, ` +
      `${summary.imagesSkipped} already stored, ${bytes(summary.bytesUploaded)} sent in ${summary.seconds}s\n`,
  );
  if (summary.error) out.write(`error: ${summary.error.code}: ${summary.error.message}\n`);
  const total = summary.warnings.length + summary.moreWarnings;
  if (total === 0) return;
  out.write(`${total} warning${total === 1 ? '' : 's'}:\n`);
  for (const w of summary.warnings.slice(0, PRINTED_WARNINGS)) out.write(`  ${w.path ? `${w.path}: ` : ''}${w.message}\n`);
  if (total > PRINTED_WARNINGS) out.write(`  … and ${total - Math.min(PRINTED_WARNINGS, summary.warnings.length)} more (--json lists the first ${summary.warnings.length})\n`);
}

/** Warnings printed one a line; --json has all the server kept. */
const PRINTED_WARNINGS = 20;

/** Runs the import; answers the exit code. */
export async function runImportCommand(options: ImportCommandOptions): Promise<number> {
  // With --json, stdout carries the summary alone and progress goes to stderr.
  const progressOut = options.json ? process.stderr : process.stdout;
  const progress: Progress = createProgress(progressOut);
  const client = new AnnostoreClient({
    url: options.url,
    key: options.key,
    onRetry: (r) => progress.note(`${r.request} ${r.reason}: trying again in ${(r.delayMs / 1000).toFixed(1)}s (retry ${r.attempt})`),
  });
  const onInterrupt = () => {
    progress.stop();
    process.stderr.write('\ninterrupted: run the same command again to resume; images already stored are not sent again\n');
    process.exit(EXIT_CODES.interrupted);
  };
  process.once('SIGINT', onInterrupt);
  try {
    const summary = await importFolder(client, {
      dir: options.dir,
      project: options.projectId !== undefined ? { id: options.projectId } : options.project !== undefined ? { title: options.project } : undefined,
      onConflict: options.onConflict,
      preset: options.preset,
      concurrency: options.concurrency,
      batchFiles: options.batchFiles,
      progress,
    });
    if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else report(summary, process.stdout);
    return summary.status === 'finished' ? EXIT_CODES.finished : EXIT_CODES.failed;
  } catch (error) {
    progress.stop();
    const { code, message } = explain(error, options.url);
    process.stderr.write(`annostore import: ${message}\n`);
    if (options.json) process.stdout.write(`${JSON.stringify({ status: 'failed', exitCode: code, error: message })}\n`);
    return code;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/** How DIR is read, from the same descriptions the error messages give. */
export const FOLDERS_HELP = `
DIR is one of (by its --preset):
${(['supervisely', 'coco', 'pascal_voc', 'yolo', 'images'] as const).map((f) => `  ${PRESETS[f]}  ${LAYOUTS[f]}`).join('\n')}
Without --preset (or with 0) the folder decides: a class file at the root makes a Supervisely
project, the files of one annotation format make that format, none a folder of images; a folder with
the files of several formats is refused. Only the files the format's import reads are sent.
`;

export const EXIT_CODES_HELP = `
Exit codes:
  0  the import task finished
  1  the task ended in error or was stopped, or the server refused the import
  2  usage error (options, or a project title that several projects share)
  3  the folder is not a project (no images, files of several formats, not of the --preset's format),
     a file cannot be read or is not a regular file inside the folder, or the server refused a file
     (not a decodable image, not valid JSON of the format)
  4  authentication failed: the key is unknown or revoked (401) or read-only (403)
  5  the server cannot be reached (after retries)
  130  interrupted; run the same command again to resume`;
