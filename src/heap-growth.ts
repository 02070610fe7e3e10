// A server's memory around a large import. V8 sets the heap size at which it next collects in full to
// what the last full collection kept times a factor it adapts, up to 4. A POST /tasks/import of 200,001
// files keeps about 70 MB alive while it is planned: V8 then let the heap reach 310 MB, mostly garbage,
// before it collected again, and the process kept that memory. Growth of 20% past the live objects held
// that import to about 330 MB in the same time; but the same factor all the time costs a busy API a
// fifth of its requests per second (small objects, collected far more often). So the factor is tight
// only while a large import is received or runs, from before its body is parsed (V8 sets its next
// limit at the collection that parsing brings), and V8 adapts its own otherwise.
//
// Even held, what a large import's request leaves behind (its file list, its plan: over 100 MB for
// 200,001 files) stays in the heap until the next full collection, which a running import, whose
// garbage is young, reaches late or never: the process kept 300 MB for the whole import. So one full
// collection follows each large import request, and one starts each large import task.
import v8 from 'node:v8';
import vm from 'node:vm';
import { CountedHold } from './counted-hold.ts';

/** Items of an import task from which an import counts as large. */
export const LARGE_IMPORT = 10_000;
/** Bytes of a POST /tasks/import body from which it counts as large: held before it is parsed. */
export const LARGE_IMPORT_BODY_BYTES = 1024 * 1024;

/**
 * How long the factor stays tight after the last large import: across the gap between an import's
 * request and its task, and until a full collection has set the next limit by it.
 */
const RELEASE_AFTER_MS = 10_000;

let tightPercent = 0;
let release: NodeJS.Timeout | undefined;

/** The growth (in percent) to hold the heap to during large imports; 0 leaves V8's own factor always. */
export function configureHeapGrowth(percent: number): void {
  tightPercent = percent;
}

// The V8 flag is process-wide and read at each full collection: the first of overlapping holds sets
// it, and it is reset RELEASE_AFTER_MS after the last one ends.
const heapGrowth = new CountedHold(
  () => {
    clearTimeout(release);
    v8.setFlagsFromString(`--heap-growing-percent=${tightPercent}`);
  },
  () => {
    release = setTimeout(() => v8.setFlagsFromString('--heap-growing-percent=0'), RELEASE_AFTER_MS);
    release.unref();
  },
);

/** Holds the heap's growth to the configured percent until the answer is called (once). */
export function holdHeapGrowth(): () => void {
  return tightPercent === 0 ? () => {} : heapGrowth.hold();
}

let fullCollection: (() => void) | undefined;

/**
 * Collects garbage in full now. V8 offers that only with --expose-gc, which a context made after the
 * flag is set picks up; the process keeps running without it.
 */
export function collectGarbage(): void {
  if (!fullCollection) {
    v8.setFlagsFromString('--expose-gc');
    fullCollection = vm.runInNewContext('gc') as () => void;
  }
  fullCollection();
}
