// Checks an uploaded annotation or class file against its declared format, so a broken file is
// refused at upload (INVALID_CONTENT) rather than failing an import later.
import fsp from 'node:fs/promises';

/** Files up to this size are parsed whole; larger ones (big COCO files) are checked by their start. */
const PARSE_WHOLE_BYTES = 64 * 1024 * 1024;

/** An uploaded file: where it is staged, and its bytes when the staging folder kept them in memory. */
export interface StagedDocument {
  path: string;
  bytes?: Buffer;
}

export interface DocumentProblem {
  code: 'UNSUPPORTED_FORMAT' | 'INVALID_CONTENT';
  message: string;
}

async function readJson({ path, bytes }: StagedDocument): Promise<{ value: unknown } | { problem: string }> {
  const size = bytes?.length ?? (await fsp.stat(path)).size;
  if (size > PARSE_WHOLE_BYTES) {
    const handle = await fsp.open(path, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(1024), 0, 1024, 0);
      const start = buffer.subarray(0, bytesRead).toString('utf8').trimStart();
      return start.startsWith('{') || start.startsWith('[') ? { value: undefined } : { problem: 'not a JSON document' };
    } finally {
      await handle.close();
    }
  }
  try {
    return { value: JSON.parse(bytes ? bytes.toString('utf8') : await fsp.readFile(path, 'utf8')) };
  } catch (error) {
    return { problem: `not valid JSON: ${(error as Error).message}` };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkSuperviselyAnnotation(value: unknown): string | null {
  if (!isObject(value)) return 'a Supervisely annotation must be a JSON object';
  if (!isObject(value.size)) return 'a Supervisely annotation needs "size": {width, height}';
  if (!Array.isArray(value.objects)) return 'a Supervisely annotation needs an "objects" array';
  return null;
}

function checkSuperviselyClasses(value: unknown): string | null {
  if (Array.isArray(value)) return null; // classes.json: a bare list of classes
  if (isObject(value) && Array.isArray(value.classes)) return null;
  return 'a Supervisely class file must be meta.json ({"classes": [...]}) or a list of classes';
}

async function isUtf8Text(file: StagedDocument): Promise<boolean> {
  const bytes = file.bytes ?? (await fsp.readFile(file.path));
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return !bytes.includes(0);
  } catch {
    return false;
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function isPng(file: StagedDocument): Promise<boolean> {
  if (file.bytes) return file.bytes.subarray(0, 8).equals(PNG_SIGNATURE);
  const handle = await fsp.open(file.path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8), 0, 8, 0);
    return bytesRead === 8 && buffer.equals(PNG_SIGNATURE);
  } finally {
    await handle.close();
  }
}

/** Reads the file from memory when its bytes were kept, else from its staged path. */
export async function checkUploadedDocument(type: 'annotation' | 'class', format: string, file: StagedDocument): Promise<DocumentProblem | null> {
  const invalid = (message: string): DocumentProblem => ({ code: 'INVALID_CONTENT', message });
  switch (format) {
    case 'supervisely': {
      const read = await readJson(file);
      if ('problem' in read) return invalid(read.problem);
      if (read.value === undefined) return null;
      const problem = type === 'annotation' ? checkSuperviselyAnnotation(read.value) : checkSuperviselyClasses(read.value);
      return problem ? invalid(problem) : null;
    }
    case 'coco': {
      const read = await readJson(file);
      return 'problem' in read ? invalid(read.problem) : null;
    }
    case 'yolo':
    case 'pascal_voc':
      if (format === 'pascal_voc' && (await isPng(file))) return null; // SegmentationObject / SegmentationClass masks
      return (await isUtf8Text(file)) ? null : invalid(`a ${format} ${type} file must be UTF-8 text${format === 'pascal_voc' ? ' or a PNG mask' : ''}`);
    default:
      return { code: 'UNSUPPORTED_FORMAT', message: `format "${format}" holds images only, not ${type} files` };
  }
}
