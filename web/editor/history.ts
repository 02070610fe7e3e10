// Undo and redo over immutable documents: the documents before and after the present one. A change
// after an undo drops what could have been redone, as editors do.

/** More steps than a day of editing one image takes; the oldest go first beyond it. */
export const MAX_STEPS = 10_000;

export interface History<T> {
  past: readonly T[];
  present: T;
  future: readonly T[];
}

export const startHistory = <T>(present: T): History<T> => ({ past: [], present, future: [] });

/** The history with `next` as the present; the same history when nothing changed. */
export function committed<T>(history: History<T>, next: T): History<T> {
  if (next === history.present) return history;
  const past = history.past.length >= MAX_STEPS ? history.past.slice(1) : history.past;
  return { past: [...past, history.present], present: next, future: [] };
}

export function undone<T>(history: History<T>): History<T> {
  const previous = history.past.at(-1);
  if (previous === undefined) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future] };
}

export function redone<T>(history: History<T>): History<T> {
  const [next, ...rest] = history.future;
  if (next === undefined) return history;
  return { past: [...history.past, history.present], present: next, future: rest };
}
