// Annotations of gallery tiles, asked a few at a time and kept (a bounded number) so that scrolling
// back costs nothing. A tile that scrolls away before its turn is not asked for at all.
import { type Annotation, getAnnotation } from './api.ts';

const CONCURRENT = 6;
const KEPT = 2000;

const kept = new Map<number, Annotation>();
const waiting: { id: number; wanted: () => boolean; resolve: (a: Annotation | null) => void }[] = [];
let running = 0;

function pump(): void {
  while (running < CONCURRENT && waiting.length) {
    const next = waiting.shift()!;
    if (!next.wanted()) {
      next.resolve(null);
      continue;
    }
    running += 1;
    getAnnotation(next.id)
      .then(({ value }) => {
        if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
        kept.set(next.id, value);
        next.resolve(value);
      })
      .catch(() => next.resolve(null))
      .finally(() => {
        running -= 1;
        pump();
      });
  }
}

/** The image's annotation, or null when it was no longer wanted by its turn (or could not be read). */
export function tileAnnotation(id: number, wanted: () => boolean): Annotation | null | Promise<Annotation | null> {
  const found = kept.get(id);
  if (found) return found;
  return new Promise((resolve) => {
    waiting.push({ id, wanted, resolve });
    pump();
  });
}
