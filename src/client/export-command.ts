// `annostore export`: starts an export through the API, follows the task, downloads the archive.
// Progress goes to stderr; --json prints one summary on stdout.
import fs from 'node:fs';
import path from 'node:path';
import { AnnostoreClient, type ExportBodyT } from './client.ts';
import { ApiError, ConnectionError } from './errors.ts';

export interface ExportCommandOptions {
  url: string;
  key: string;
  projectId?: number | undefined;
  datasetIds?: number[] | undefined;
  format?: string | undefined;
  /** A DTL graph instead of projectId, datasetIds, format and options. */
  config?: unknown[] | undefined;
  /** `name=value` pairs; values true/false are booleans, lists are comma-separated for `classes`. */
  options: Record<string, unknown>;
  /** The archive's file; default `<export name>.zip` in the current folder. */
  out?: string | undefined;
  json: boolean;
}

export const EXPORT_EXIT_CODES_HELP = `
Exit codes:
  0  the archive is downloaded
  1  the export ended in error or was stopped, or the server refused it (an unknown format, option or class)
  4  authentication failed: the key is unknown or revoked (401) or read-only (403)
  5  the server cannot be reached (after retries)`;

/** A DTL graph file bigger than this is refused before it is read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The DTL graph of a JSON file: a list of layers (the server checks them). */
export function readConfigFile(file: string): unknown[] {
  const size = fs.statSync(file).size;
  if (size > MAX_CONFIG_BYTES) throw new Error(`${file} is ${size} bytes; a graph file holds at most ${MAX_CONFIG_BYTES}`);
  let config: unknown;
  try {
    config = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(config)) throw new Error(`${file} holds no graph: a DTL config is a JSON list of layers`);
  return config;
}

/** `name=value` → [name, value]: true/false as booleans, `classes` as a comma-separated list. */
export function parseOption(pair: string): [string, unknown] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new Error(`an option is name=value, not "${pair}"`);
  const name = pair.slice(0, at);
  const raw = pair.slice(at + 1);
  if (name === 'classes') return [name, raw.split(',').filter((c) => c !== '')];
  return [name, raw === 'true' ? true : raw === 'false' ? false : raw];
}

export async function runExportCommand(o: ExportCommandOptions): Promise<number> {
  const client = new AnnostoreClient({ url: o.url, key: o.key });
  const say = (text: string) => process.stderr.write(`${text}\n`);
  try {
    const body: ExportBodyT = o.config ? { config: o.config as ExportBodyT['config'] } : { format: o.format, options: o.options };
    if (o.projectId !== undefined) body.projectId = o.projectId;
    if (o.datasetIds !== undefined) body.datasetIds = o.datasetIds;
    const { task } = await client.startExport(body);
    say(`export task ${task.id} started`);
    let shown = '';
    const ended = await client.waitForTask(task.id, {
      read: (id) => client.v2.tasks.get(id),
      onUpdate: (t) => {
        const progress = (t.meta as Record<string, unknown>).progress as { done: number; total: number } | undefined;
        const line = `${t.status}${progress ? ` ${progress.done}/${progress.total} images` : ''}`;
        if (line !== shown && !o.json) say(line);
        shown = line;
      },
    });
    const meta = ended.meta as Record<string, unknown>;
    if (ended.status !== 'finished') {
      const error = meta.error as { code: string; message: string } | undefined;
      say(`the export ${ended.status}${error ? `: ${error.code}: ${error.message}` : ''}`);
      if (o.json) console.log(JSON.stringify({ taskId: task.id, status: ended.status, error: error ?? null }));
      return 1;
    }
    const project = meta.project as { id: number; title: string } | undefined;
    if (project) {
      // A graph whose output is a new project: there is no archive to download.
      if (o.json) console.log(JSON.stringify({ taskId: task.id, status: 'finished', project }));
      else say(`project ${project.id} "${project.title}" written`);
      return 0;
    }
    // The file name from the project title, without what a file system refuses.
    const name = typeof meta.name === 'string' ? [...meta.name].map((c) => (c < ' ' || '\\/:*?"<>|'.includes(c) ? '_' : c)).join('') : `export-${task.id}`;
    const file = path.resolve(o.out ?? `${name}.zip`);
    const { size } = await client.downloadExport(task.id, file);
    const notices = (meta.notices as { message: string; count: number; first: string }[] | undefined) ?? [];
    for (const n of notices) say(`note: ${n.message} (${n.count}, first ${n.first})`);
    const skipped = meta.skipped as { count: number; first: { image: string; message: string }[] } | undefined;
    if (skipped?.count) say(`note: ${skipped.count} images skipped, the first ${skipped.first[0]?.image}: ${skipped.first[0]?.message}`);
    if (o.json) console.log(JSON.stringify({ taskId: task.id, status: 'finished', file, size, notices }));
    else say(`${file}: ${size} bytes`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      say(`annostore export: ${error.message}`);
      return error.status === 401 || error.status === 403 ? 4 : 1;
    }
    if (error instanceof ConnectionError) {
      say(`annostore export: ${error.message}`);
      return 5;
    }
    throw error;
  }
}
