// The history of an image's annotation: its revisions newest first (who, when, objects added, removed
// and changed), read when opened. A click previews one on the stage (read-only); the preview offers to
// restore it, which the server records as a new revision.
import { useEffect, useState } from 'preact/hooks';
import { type Annotation, type Revision, type Tagged, getRevision, listRevisions, restoreRevision } from '../api.ts';

export interface RevisionPreview {
  revision: Revision;
  annotation: Annotation;
}

interface Props {
  imageId: number;
  /** Who is signed in: the revisions of their key or their user read "you". */
  me: Me;
  /** The ETag of the annotation shown; a change of it reads the list again. */
  etag: string;
  preview: RevisionPreview | null;
  onPreview: (preview: RevisionPreview | null) => void;
}

/** The signed-in key and the user it belongs to. */
export interface Me {
  keyId: number;
  userId: number;
}

/** Who made a revision, in words. */
export function authorOf(revision: Revision, me: Me): string {
  const { author } = revision;
  if (author.taskId !== null) return `task ${author.taskId}`;
  if (author.keyId === me.keyId || (author.userId !== null && author.userId === me.userId)) return 'you';
  if (author.userId !== null) return `user ${author.userId}`;
  return author.keyId === null ? 'unknown' : `API key ${author.keyId}`;
}

export const whenOf = (revision: Revision): string => new Date(revision.createdAt).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });

/** "+2 −1 ~3": objects added, removed and changed. */
function countsOf(revision: Revision): string {
  const { added, removed, changed } = revision.objects;
  const parts = [added && `+${added}`, removed && `−${removed}`, changed && `~${changed}`].filter(Boolean);
  return parts.length ? parts.join(' ') : 'details only';
}

function countsLabel(revision: Revision): string {
  const { added, removed, changed } = revision.objects;
  return `${added} objects added, ${removed} removed, ${changed} changed`;
}

export function RevisionHistory(props: Props) {
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<Revision[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [opening, setOpening] = useState<number | null>(null);

  useEffect(() => {
    if (!open) return;
    let live = true;
    setError('');
    listRevisions(props.imageId).then(
      (page) => {
        if (!live) return;
        setItems(page.items);
        setNext(page.nextCursor);
      },
      (failure: Error) => live && setError(failure.message),
    );
    return () => void (live = false);
  }, [open, props.imageId, props.etag]);

  const more = () => {
    if (next === null) return;
    listRevisions(props.imageId, next).then(
      (page) => {
        setItems((before) => [...(before ?? []), ...page.items]);
        setNext(page.nextCursor);
      },
      (failure: Error) => setError(failure.message),
    );
  };

  const show = (revision: Revision) => {
    if (props.preview?.revision.id === revision.id) return props.onPreview(null);
    setOpening(revision.id);
    getRevision(props.imageId, revision.id).then(
      (found) => {
        setOpening(null);
        props.onPreview(found);
      },
      (failure: Error) => {
        setOpening(null);
        setError(failure.message);
      },
    );
  };

  return (
    <details class="history" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>History</summary>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {open && items === null && !error && <p role="status">Loading…</p>}
      {items !== null && items.length === 0 && <p class="quiet-text">No changes recorded yet.</p>}
      {items !== null && items.length > 0 && (
        <ol class="revisions" aria-label="Revisions, newest first">
          {items.map((r, i) => {
            const current = props.preview?.revision.id === r.id;
            return (
              <li key={r.id}>
                <button type="button" class="revision" aria-pressed={current} aria-busy={opening === r.id} onClick={() => show(r)}>
                  <span class="revision-when">
                    {whenOf(r)}
                    {i === 0 ? ' · current' : ''}
                  </span>
                  <span class="revision-who">{authorOf(r, props.me)}</span>
                  <span class="revision-counts" aria-label={countsLabel(r)}>
                    {countsOf(r)}
                  </span>
                </button>
              </li>
            );
          })}
        </ol>
      )}
      {next !== null && (
        <button type="button" class="quiet" onClick={more}>
          Older revisions
        </button>
      )}
    </details>
  );
}

/** Over the stage while a revision is previewed: what it is, restore it, or go back to the annotation now. */
export function RevisionBanner(props: {
  imageId: number;
  preview: RevisionPreview;
  me: Me;
  etag: string;
  canRestore: boolean;
  /** Why restoring is not offered now (unsaved changes), if so. */
  blocked: string | null;
  onClose: () => void;
  onRestored: (answer: Tagged<Annotation>) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const stop = (event: Event) => event.stopPropagation();
  const restore = () => {
    setBusy(true);
    setError('');
    restoreRevision(props.imageId, props.preview.revision.id, props.etag).then(
      (answer) => {
        setBusy(false);
        props.onRestored(answer);
      },
      (failure: Error & { status?: number }) => {
        setBusy(false);
        setError(failure.status === 412 ? 'The annotation changed meanwhile: close the preview and look again.' : failure.message);
      },
    );
  };
  const { revision } = props.preview;
  return (
    <div class="revision-banner" role="region" aria-label="Revision preview" onPointerDown={stop} onWheel={stop}>
      <span>
        Revision of {whenOf(revision)} by {authorOf(revision, props.me)} ({props.preview.annotation.objects.length} objects), read-only
      </span>
      {props.canRestore && (
        <button type="button" onClick={restore} disabled={busy || props.blocked !== null} title={props.blocked ?? undefined}>
          {busy ? 'Restoring…' : 'Restore this revision'}
        </button>
      )}
      <button type="button" class="quiet" onClick={props.onClose}>
        Close preview
      </button>
      {props.blocked && props.canRestore && <span class="quiet-text">{props.blocked}</span>}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
