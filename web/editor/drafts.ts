// Unsaved edits kept in the browser (localStorage), so that a reload, a crash or a closed tab does not
// lose them: one draft per image, with the ETag of the version it was made on and when it was kept.
// Bounded: a draft over MAX_CHARS is not kept (the page says so), and only the KEPT newest drafts stay.
import type { EditorDocument } from './document.ts';

const PREFIX = 'annostore.draft.';
const INDEX = 'annostore.drafts';
/** About 4 MB of UTF-16: localStorage holds 5 MB or so an origin, and other pages of the app share it. */
export const MAX_CHARS = 2_000_000;
const KEPT = 20;

export interface Draft {
  etag: string;
  /** When it was kept (ms since the epoch). */
  savedAt: number;
  doc: EditorDocument;
}

type Index = { id: number; savedAt: number }[];

function readIndex(): Index {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(INDEX) ?? '[]');
    return Array.isArray(parsed) ? (parsed as Index) : [];
  } catch {
    return [];
  }
}

export function readDraft(imageId: number): Draft | null {
  try {
    const parsed = JSON.parse(localStorage.getItem(PREFIX + imageId) ?? 'null') as Draft | null;
    return parsed && typeof parsed.etag === 'string' && typeof parsed.savedAt === 'number' && Array.isArray(parsed.doc?.objects) ? parsed : null;
  } catch {
    return null;
  }
}

/** Keeps the draft; false when it is too large or the browser refuses it. */
export function writeDraft(imageId: number, draft: Draft): boolean {
  const text = JSON.stringify(draft);
  if (text.length > MAX_CHARS) {
    dropDraft(imageId);
    return false;
  }
  const index = readIndex().filter((entry) => entry.id !== imageId);
  index.push({ id: imageId, savedAt: draft.savedAt });
  // The oldest go first.
  for (const old of index.splice(0, Math.max(0, index.length - KEPT))) localStorage.removeItem(PREFIX + old.id);
  try {
    localStorage.setItem(PREFIX + imageId, text);
    localStorage.setItem(INDEX, JSON.stringify(index));
    return true;
  } catch {
    localStorage.removeItem(PREFIX + imageId);
    return false;
  }
}

export function dropDraft(imageId: number): void {
  try {
    localStorage.removeItem(PREFIX + imageId);
    localStorage.setItem(INDEX, JSON.stringify(readIndex().filter((entry) => entry.id !== imageId)));
  } catch {
    // Nothing kept, nothing to drop.
  }
}
