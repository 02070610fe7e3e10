// What every format writer promises, whatever its format: safe and distinct entry paths, images as
// blob references only when asked for, records grouped by dataset, and a close that may come early.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UNKNOWN_CLASS } from '../../src/formats/writer.ts';
import { EXPORT_FORMATS, type ExportFormat, type WriterOptions, createFormatWriter } from '../../src/formats/writers.ts';
import { scratchDir, writeAll } from '../helpers/archive-folder.ts';
import { SAMPLE_PROJECT, sampleRecords } from '../helpers/export-samples.ts';

function options(format: ExportFormat, includeImages: boolean): WriterOptions {
  switch (format) {
    case 'supervisely':
      return { format, includeImages };
    case 'coco':
      return { format, includeImages, tempDir: scratchDir('coco-spool') };
    case 'yolo':
      return { format, includeImages, task: 'segment', splitsFromDatasets: true };
    case 'pascal_voc':
      return { format, includeImages, segmentation: true };
    case 'masks':
      return { format, includeImages, machine: true, human: true };
  }
}

describe('every format writer', () => {
  for (const format of EXPORT_FORMATS) {
    test(`${format}: distinct safe paths; one image entry a record, by its blob, only when images are included`, async () => {
      for (const includeImages of [true, false]) {
        const records = sampleRecords();
        const writer = createFormatWriter(SAMPLE_PROJECT, options(format, includeImages));
        const entries = await writeAll(writer, records);
        await writer.close();
        const paths = entries.map((e) => e.path);
        assert.equal(new Set(paths.map((p) => p.toLowerCase())).size, paths.length);
        assert.ok(paths.every((p) => p !== '' && !p.startsWith('/') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..')));
        const images = entries.filter((e) => !Buffer.isBuffer(e.body) && 'blobHash' in e.body);
        assert.deepEqual(images.map((e) => (e.body as { blobHash: string }).blobHash), includeImages ? records.map((r) => r.hash) : []);
        for (const notice of writer.notices()) assert.ok(notice.count > 0 && notice.first.includes('/'));
      }
    });

    test(`${format}: an object of a class the project lacks is left out and counted once`, async () => {
      const [, b] = sampleRecords();
      const ghost = { ...b!.objects[0]!, classTitle: 'ghost' };
      const writer = createFormatWriter(SAMPLE_PROJECT, options(format, false));
      await writeAll(writer, [{ ...b!, objects: [...b!.objects, ghost] }]);
      await writer.close();
      assert.deepEqual(writer.notices().filter((n) => n.message === UNKNOWN_CLASS), [{ message: UNKNOWN_CLASS, count: 1, first: 'train/a.png' }]);
    });

    test(`${format}: a dataset that comes back after another is refused`, async () => {
      const [a, , c] = sampleRecords();
      const writer = createFormatWriter(SAMPLE_PROJECT, options(format, false));
      await writer.add(a!);
      await writer.add(c!);
      await assert.rejects(writer.add(a!), /must come together/);
      await writer.close();
    });
  }
});
