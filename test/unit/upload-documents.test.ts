// The check of uploaded class and annotation files gives the same answer whether the staging folder
// kept the bytes in memory or they are read from the staged file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { checkUploadedDocument } from '../../src/services/upload-documents.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annostore-documents-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const PNG_START = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

const cases: { name: string; type: 'annotation' | 'class'; format: string; bytes: Buffer; code: string | null }[] = [
  { name: 'a Supervisely annotation', type: 'annotation', format: 'supervisely', bytes: Buffer.from('{"size":{"width":2,"height":2},"objects":[]}'), code: null },
  { name: 'an annotation without objects', type: 'annotation', format: 'supervisely', bytes: Buffer.from('{"size":{"width":2,"height":2}}'), code: 'INVALID_CONTENT' },
  { name: 'broken JSON', type: 'annotation', format: 'supervisely', bytes: Buffer.from('{"size":'), code: 'INVALID_CONTENT' },
  { name: 'a class list', type: 'class', format: 'supervisely', bytes: Buffer.from('{"classes":[]}'), code: null },
  { name: 'a COCO file', type: 'annotation', format: 'coco', bytes: Buffer.from('{"images":[]}'), code: null },
  { name: 'YOLO text', type: 'annotation', format: 'yolo', bytes: Buffer.from('0 0.5 0.5 0.1 0.1\n'), code: null },
  { name: 'YOLO with a NUL byte', type: 'annotation', format: 'yolo', bytes: Buffer.from('0 0.5\0'), code: 'INVALID_CONTENT' },
  { name: 'a VOC mask', type: 'annotation', format: 'pascal_voc', bytes: PNG_START, code: null },
  { name: 'VOC bytes that are neither text nor PNG', type: 'annotation', format: 'pascal_voc', bytes: Buffer.from([0xff, 0xfe, 0x00]), code: 'INVALID_CONTENT' },
  { name: 'an annotation of an images-only format', type: 'annotation', format: 'images', bytes: Buffer.from('{}'), code: 'UNSUPPORTED_FORMAT' },
];

describe('checkUploadedDocument', () => {
  for (const c of cases) {
    test(`${c.name}: ${c.code ?? 'accepted'}, from memory and from disk alike`, async () => {
      const file = path.join(dir, c.name.replaceAll(' ', '-'));
      fs.writeFileSync(file, c.bytes);
      const fromMemory = await checkUploadedDocument(c.type, c.format, { path: path.join(dir, 'not-there'), bytes: c.bytes });
      const fromDisk = await checkUploadedDocument(c.type, c.format, { path: file });
      assert.equal(fromMemory?.code ?? null, c.code);
      assert.deepEqual(fromMemory, fromDisk);
    });
  }
});
