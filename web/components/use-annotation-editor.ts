// The state of one image's editor: the history of documents, what is selected, and saving under
// If-Match. A save that meets someone else's change (412) never overwrites: it keeps both versions
// for the conflict view, whose "keep mine" sends this one again against the NEW tag, deliberately.
// A 400 names the offending object by its JSON pointer; the problem stays beside that object.
// Unsaved changes are kept in the browser as a draft (editor/drafts.ts) and offered back when the
// image is opened again; a draft made on a version someone has since replaced is restored against
// that older version, so that saving it meets theirs in the conflict view rather than overwriting it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Annotation, ApiError, type Tagged, getAnnotation, saveAnnotation } from '../api.ts';
import { EditRefused, type EditorDocument, fromAnnotation, objectIndexOfPointer, toAnnotationBody } from '../editor/document.ts';
import { type History, committed, redone, startHistory, undone } from '../editor/history.ts';
import { type Draft, dropDraft, readDraft, writeDraft } from '../editor/drafts.ts';
import type { Edit, Selection } from './editor-overlay.tsx';

interface Saved {
  /** The document the server holds (as far as this page knows): no unsaved change when it is the present. */
  doc: EditorDocument;
  etag: string;
  /** The ids of the server's objects: an object restored by undo whose id is gone is sent as new. */
  ids: ReadonlySet<number>;
}

export interface Notice {
  text: string;
  error: boolean;
}

const idsOf = (annotation: Annotation) => new Set(annotation.objects.map((o) => o.id));

export function useAnnotationEditor(imageId: number, initial: Tagged<Annotation>, onSaved: (answer: Tagged<Annotation>) => void) {
  const [history, setHistoryState] = useState<History<EditorDocument>>(() => startHistory(fromAnnotation(initial.value)));
  const historyNow = useRef(history);
  const [saved, setSavedState] = useState<Saved>(() => ({ doc: historyNow.current.present, etag: initial.etag, ids: idsOf(initial.value) }));
  const savedNow = useRef(saved);
  const [selected, setSelected] = useState<Selection | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [problems, setProblems] = useState<ReadonlyMap<number, string>>(new Map());
  const [saving, setSaving] = useState(false);
  // Set at once, not at the next render: a second Ctrl+S pressed while a save is on its way would
  // otherwise send the same ETag again and be answered 412, as if someone else had saved.
  const savingNow = useRef(false);
  const [conflict, setConflict] = useState<Tagged<Annotation> | null>(null);
  // A draft kept by an earlier visit, offered until restored or discarded (and not overwritten meanwhile).
  const [draft, setDraftState] = useState<Draft | null>(() => readDraft(imageId));
  const draftNow = useRef(draft);
  const setDraft = (next: Draft | null) => {
    draftNow.current = next;
    setDraftState(next);
  };

  const setHistory = (next: History<EditorDocument>) => {
    historyNow.current = next;
    setHistoryState(next);
  };
  const setSaved = (next: Saved) => {
    savedNow.current = next;
    setSavedState(next);
  };

  // The unsaved document is kept as a draft a moment after each change (and at once when the page
  // goes away); a clean one has none.
  const abandoned = useRef(false);
  const keepDraft = () => {
    if (draftNow.current || abandoned.current) return;
    const present = historyNow.current.present;
    if (present === savedNow.current.doc) return dropDraft(imageId);
    if (!writeDraft(imageId, { etag: savedNow.current.etag, savedAt: Date.now(), doc: present })) setNotice({ text: 'Unsaved changes (too large for this browser to keep a draft of them).', error: false });
  };
  const keepDraftNow = useRef(keepDraft);
  keepDraftNow.current = keepDraft;
  useEffect(() => {
    if (draft) return;
    if (history.present === saved.doc) return dropDraft(imageId);
    const timer = setTimeout(keepDraft, 400);
    return () => clearTimeout(timer);
  }, [history.present, saved.doc, draft]);
  useEffect(() => {
    const flush = () => keepDraftNow.current();
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, []);

  /** The kept draft becomes the present document (one step to undo). */
  const restoreDraft = () => {
    const kept = draftNow.current;
    if (!kept) return;
    setHistory(committed(historyNow.current, kept.doc));
    const older = kept.etag !== savedNow.current.etag;
    if (older) setSaved({ ...savedNow.current, etag: kept.etag });
    setDraft(null);
    setNotice({ text: older ? 'Unsaved changes restored; the image was saved since, so Save shows both versions.' : 'Unsaved changes restored.', error: false });
  };
  const discardDraft = () => {
    dropDraft(imageId);
    setDraft(null);
  };
  /** The user chose to leave without saving: no draft is kept of it. */
  const abandon = () => {
    abandoned.current = true;
    dropDraft(imageId);
  };

  /** Applies an edit to the present document: one step to undo. A refused edit says why. */
  const edit = (change: Edit, select?: Selection | null | 'added') => {
    try {
      const before = historyNow.current.present;
      const next = change(before);
      setHistory(committed(historyNow.current, next));
      if (select === 'added') setSelected({ key: before.nextKey });
      else if (select !== undefined) setSelected(select);
      setNotice(null);
    } catch (failure) {
      if (!(failure instanceof EditRefused)) throw failure;
      setNotice({ text: `Not done: ${failure.message}.`, error: true });
    }
  };

  const keepSelectionIn = (doc: EditorDocument) => setSelected((s) => (s && doc.objects.some((o) => o.key === s.key) ? { key: s.key } : null));
  const undo = () => {
    setHistory(undone(historyNow.current));
    keepSelectionIn(historyNow.current.present);
  };
  const redo = () => {
    setHistory(redone(historyNow.current));
    keepSelectionIn(historyNow.current.present);
  };

  /** Saves the present document against `against` (the tag it was based on, or theirs to overwrite). */
  const save = async (against: Saved = savedNow.current) => {
    if (savingNow.current) return;
    const doc = historyNow.current.present;
    const { body, keys } = toAnnotationBody(doc, against.ids);
    savingNow.current = true;
    setSaving(true);
    setNotice(null);
    try {
      const answer = await saveAnnotation(imageId, body, against.etag);
      // New objects got their ids, in the order sent: every version in the history learns them.
      const idOf = new Map(keys.map((key, i) => [key, answer.value.objects[i]?.id]));
      const withIds = (d: EditorDocument): EditorDocument =>
        d.objects.some((o) => idOf.has(o.key) && o.id !== idOf.get(o.key)) ? { ...d, objects: d.objects.map((o) => (idOf.has(o.key) && o.id !== idOf.get(o.key) ? { ...o, id: idOf.get(o.key)! } : o)) } : d;
      const h = historyNow.current;
      const present = withIds(h.present);
      setHistory({ past: h.past.map(withIds), present, future: h.future.map(withIds) });
      // Saved is the document that was sent; changes made while it was on its way stay unsaved.
      setSaved({ doc: h.present === doc ? present : withIds(doc), etag: answer.etag, ids: idsOf(answer.value) });
      setProblems(new Map());
      setConflict(null);
      setNotice({ text: 'Saved.', error: false });
      onSaved(answer);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 412) {
        setConflict(await getAnnotation(imageId));
      } else if (failure instanceof ApiError && failure.status === 400) {
        const found = new Map<number, string>();
        for (const problem of failure.problem.errors ?? []) {
          const key = keys[objectIndexOfPointer(problem.pointer)];
          if (key !== undefined) found.set(key, `${problem.detail} (${problem.pointer.replace(/^\/objects\/\d+/, '') || 'the object'})`);
        }
        setProblems(found);
        const first = found.keys().next();
        if (!first.done) setSelected({ key: first.value });
        setNotice({ text: `Not saved: ${failure.message}${found.size ? ' — see the object marked in the list.' : ''}`, error: true });
      } else {
        setNotice({ text: `Not saved: ${(failure as Error).message}`, error: true });
      }
    } finally {
      savingNow.current = false;
      setSaving(false);
    }
  };

  /** After a conflict: this version replaces theirs, on purpose (If-Match names theirs). */
  const keepMine = () => {
    if (conflict) void save({ doc: savedNow.current.doc, etag: conflict.etag, ids: idsOf(conflict.value) });
  };

  /** A version saved elsewhere becomes the one edited; the history starts again. */
  const load = (answer: Tagged<Annotation>, text: string) => {
    const doc = fromAnnotation(answer.value);
    setHistory(startHistory(doc));
    setSaved({ doc, etag: answer.etag, ids: idsOf(answer.value) });
    setSelected(null);
    setProblems(new Map());
    setNotice({ text, error: false });
    onSaved(answer);
  };

  /** After a conflict: their version is loaded and this one dropped. */
  const reloadTheirs = () => {
    if (!conflict) return;
    setConflict(null);
    load(conflict, 'Their version is loaded.');
  };

  return {
    doc: history.present,
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
    dirty: history.present !== saved.doc,
    /** Whether there are unsaved changes now (for checks run outside a render). */
    isDirty: () => historyNow.current.present !== savedNow.current.doc,
    selected,
    select: setSelected,
    notice,
    setNotice,
    problems,
    saving,
    conflict,
    closeConflict: () => setConflict(null),
    draft,
    abandon,
    restoreDraft,
    discardDraft,
    edit,
    undo,
    redo,
    save: () => save(),
    keepMine,
    reloadTheirs,
    /** A revision restored on the server: its answer becomes the saved version. */
    loadRestored: (answer: Tagged<Annotation>) => load(answer, 'Revision restored.'),
  };
}

export type AnnotationEditor = ReturnType<typeof useAnnotationEditor>;
