// The classes of a project on its settings page: each with its colour, shape and images, renamed,
// recoloured or deleted (after saying how many objects go with it), and new ones added. Every change
// goes under If-Match with the ETag read when the change began.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ImageClass, type Tagged, changeClass, classUsage, countImages, deleteClass, readClass } from '../api.ts';
import { CHANGED_MEANWHILE, counted } from '../counting.ts';
import { ColorPicker } from './color-picker.tsx';
import { ConfirmDialog } from './confirm-dialog.tsx';
import { NewClassForm } from './new-class-form.tsx';

interface Props {
  projectId: number;
  classes: ImageClass[];
  readOnly: boolean;
  /** Tells the page the classes changed: it reads them again. */
  onChanged: () => void;
}

type Editing = { kind: 'rename' | 'colour'; current: Tagged<ImageClass>; title: string; color: string };

export function ClassSettings(props: Props) {
  const [images, setImages] = useState<Map<number, number>>(new Map());
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<{ current: Tagged<ImageClass>; objects: number; images: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const [dialogError, setDialogError] = useState('');

  useEffect(() => {
    let live = true;
    const queue = [...props.classes];
    const found = new Map<number, number>();
    void Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let c = queue.shift(); c && live; c = queue.shift()) found.set(c.id, await countImages({ projectId: props.projectId, classId: c.id }));
      }),
    ).then(() => live && setImages(found), () => undefined);
    return () => void (live = false);
  }, [props.classes]);

  const failed = (failure: unknown) => {
    if (failure instanceof ApiError && failure.status === 412) setMessage(CHANGED_MEANWHILE);
    else if (failure instanceof ApiError && failure.status === 409) setMessage((failure as Error).message);
    else setMessage((failure as Error).message);
    props.onChanged();
  };

  /** Reads the class as it is now: its ETag guards the change, and a change made meanwhile shows. */
  const begin = async (shown: ImageClass): Promise<Tagged<ImageClass> | null> => {
    setMessage('');
    try {
      const current = await readClass(shown.id);
      if (current.value.title !== shown.title || current.value.color !== shown.color) {
        setMessage(`“${shown.title}” was changed meanwhile; the current version is shown.`);
        props.onChanged();
      }
      return current;
    } catch (failure) {
      failed(failure);
      return null;
    }
  };

  const startEdit = async (c: ImageClass, kind: Editing['kind']) => {
    const current = await begin(c);
    if (current) setEditing({ kind, current, title: current.value.title, color: current.value.color });
  };

  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const { current, kind } = editing;
    const change = kind === 'rename' ? { title: editing.title.trim() } : { color: editing.color };
    if (kind === 'rename' && !change.title) return setMessage('A class needs a title.');
    setBusy(true);
    try {
      await changeClass(current.value.id, change, current.etag);
      setEditing(null);
      props.onChanged();
    } catch (failure) {
      failed(failure);
      if (failure instanceof ApiError && failure.status === 412) setEditing(null);
    } finally {
      setBusy(false);
    }
  };

  const askDelete = async (c: ImageClass) => {
    setDialogError('');
    const current = await begin(c);
    if (!current) return;
    try {
      setDeleting({ current, ...(await classUsage(c.id)) });
    } catch (failure) {
      failed(failure);
    }
  };

  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await deleteClass(deleting.current.value.id, deleting.current.etag);
      setDeleting(null);
      props.onChanged();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 412) setDialogError(CHANGED_MEANWHILE);
      else setDialogError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const others = (c: ImageClass) => props.classes.filter((o) => o.id !== c.id).map((o) => o.color);
  return (
    <section class="schema-section" aria-labelledby="classes-title">
      <h2 id="classes-title">Classes</h2>
      {message && (
        <p class="error" role="alert">
          {message}
        </p>
      )}
      {props.classes.length === 0 && <p class="quiet-text">No classes yet.</p>}
      <ul class="schema-rows" aria-label="Classes">
        {props.classes.map((c) => {
          const here = editing?.current.value.id === c.id ? editing : null;
          return (
            <li key={c.id} class="schema-row">
              <div class="row-main">
                <span class="swatch big" style={{ background: here?.kind === 'colour' ? here.color : c.color }} aria-hidden="true" />
                {here?.kind === 'rename' ? (
                  <form class="inline-form" onSubmit={(e) => void save(e)}>
                    <input aria-label={`New title of ${c.title}`} value={here.title} maxLength={255} autoFocus onInput={(e) => setEditing({ ...here, title: (e.currentTarget as HTMLInputElement).value })} />
                    <button type="submit" disabled={busy}>
                      Save title
                    </button>
                    <button type="button" class="quiet" onClick={() => setEditing(null)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  <span class="row-title">{c.title}</span>
                )}
                <span class="shape-badge">{c.shape}</span>
                <span class="row-count">{images.has(c.id) ? counted(images.get(c.id)!, 'image') : '…'}</span>
                {!props.readOnly && !here && (
                  <span class="row-actions">
                    <button type="button" class="quiet" aria-label={`Rename ${c.title}`} onClick={() => void startEdit(c, 'rename')}>
                      Rename
                    </button>
                    <button type="button" class="quiet" aria-label={`Colour of ${c.title}`} onClick={() => void startEdit(c, 'colour')}>
                      Colour
                    </button>
                    <button type="button" class="quiet danger-text" aria-label={`Delete ${c.title}`} onClick={() => void askDelete(c)}>
                      Delete…
                    </button>
                  </span>
                )}
              </div>
              {here?.kind === 'colour' && (
                <form class="colour-form" onSubmit={(e) => void save(e)}>
                  <ColorPicker value={here.color} onChange={(color) => setEditing({ ...here, color })} taken={others(c)} label={`Colour of ${c.title}`} />
                  <div class="form-actions">
                    <button type="button" class="quiet" onClick={() => setEditing(null)}>
                      Cancel
                    </button>
                    <button type="submit" disabled={busy}>
                      Save colour
                    </button>
                  </div>
                </form>
              )}
            </li>
          );
        })}
      </ul>
      {!props.readOnly && (
        <details class="add-class">
          <summary>Add a class</summary>
          <NewClassForm projectId={props.projectId} classes={props.classes} idPrefix="settings-class" onCreated={() => props.onChanged()} />
        </details>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the class “${deleting?.current.value.title ?? ''}”?`}
        confirmLabel="Delete class"
        busy={busy}
        error={dialogError}
        onConfirm={() => void remove()}
        onCancel={() => setDeleting(null)}
      >
        {deleting && (
          <p>
            {deleting.objects === 0 ? (
              'No object is of this class.'
            ) : (
              <>
                <strong>{counted(deleting.objects, 'object')}</strong> on {counted(deleting.images, 'image')} are of this class and are deleted with it. This cannot be undone.
              </>
            )}
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
