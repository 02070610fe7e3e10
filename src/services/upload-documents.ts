// Checks an uploaded annotation or class file against its declared format, so a broken file is
// refused at upload (INVALID_CONTENT) rather than failing an import later.
//
// A JSON file is parsed whole (JSON.parse, whose verdict and message the answer gives): 26 MB of
// Supervisely objects took 1 to 4 s, during which a server answered nothing, not even /healthz. So a
// server parses on an annotation thread every file that is not already in memory (see `offThread`);
// text files are read in chunks, which a request's event loop interleaves with other work.
import fs from 'node:fs';
import fsp from 'node:fs/promises';

/** Files up to this size are parsed whole; larger ones (big COCO files) are checked by their start. */
const PARSE_WHOLE_BYTES = 64 * 1024 * 1024;

/** An uploaded file: where it is staged, and its bytes when the staging folder kept them in memory. */
export interface StagedDocument {
  path: string;
  bytes?: Buffer;
}

export type DocumentType = 'annotation' | 'class';

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

/** Whether the file is UTF-8 without a NUL; a file on disk is read a chunk at a time, never whole. */
async function isUtf8Text(file: StagedDocument): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    if (file.bytes) {
      decoder.decode(file.bytes);
      return !file.bytes.includes(0);
    }
    for await (const chunk of fs.createReadStream(file.path) as AsyncIterable<Buffer>) {
      if (chunk.includes(0)) return false;
      // A character split between chunks is completed by the next one; one still cut at the end throws below.
      decoder.decode(chunk, { stream: true });
    }
    decoder.decode();
    return true;
  } catch (error) {
    if (error instanceof TypeError) return false; // the decoder's verdict: not UTF-8
    throw error;
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

/** Checks a staged file (see checkUploadedDocument) elsewhere: on an annotation thread. */
export type OffThreadCheck = (type: DocumentType, format: string, path: string) => Promise<DocumentProblem | null>;

/** Formats whose files are parsed whole as JSON. */
const JSON_FORMATS = new Set(['supervisely', 'coco']);

/**
 * Reads the file from memory when its bytes were kept, else from its staged path. With `offThread`, a
 * JSON file not in memory is handed to it. The staging folder keeps up to 64 KiB in memory
 * (KEEP_BYTES), and such a file is parsed here: on the 2-core machine, loaded, a 64 KiB annotation
 * parsed in 4 to 9 ms, and the round trip to a thread that read and parsed it took 1.5 to 8 ms, so
 * the hop saves little at that size (a server turns its event loop between such files).
 */
export async function checkUploadedDocument(type: DocumentType, format: string, file: StagedDocument, offThread?: OffThreadCheck): Promise<DocumentProblem | null> {
  if (offThread && !file.bytes && JSON_FORMATS.has(format)) return offThread(type, format, file.path);
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
