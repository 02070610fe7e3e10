// The datasets of a project on its settings page: each with what it holds, renamed or deleted (after
// saying how many images and objects go with it), made managers-only or ordinary, and new ones added;
// changes under If-Match. A managers-only dataset, where ground truth belongs, is seen by the
// project's managers alone (docs/jobs.md, Quality): only they get this list with it.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Dataset, type Tagged, createDataset, deleteDataset, readDataset, renameDataset, setManagersOnly } from '../api.ts';
import { CHANGED_MEANWHILE, counted } from '../counting.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';
import { Link } from './link.tsx';

interface Props {
  projectId: number;
  datasets: Dataset[];
  readOnly: boolean;
  onChanged: () => void;
}

export function DatasetSettings(props: Props) {
  const [renaming, setRenaming] = useState<{ current: Tagged<Dataset>; title: string } | null>(null);
  const [deleting, setDeleting] = useState<{ current: Tagged<Dataset>; shown: Dataset } | null>(null);
  const [newTitle, setNewTitle] = useState('');
  const [newManagersOnly, setNewManagersOnly] = useState(false);
  /** The box as just clicked, shown until the list is read again (or the change is refused). */
  const [toggling, setToggling] = useState<{ id: number; to: boolean } | null>(null);
  useEffect(() => setToggling(null), [props.datasets]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const [dialogError, setDialogError] = useState('');

  const explain = (failure: unknown, title?: string) => {
    if (failure instanceof ApiError && failure.status === 412) return CHANGED_MEANWHILE;
    if (failure instanceof ApiError && failure.status === 409 && title) return `The project already has a dataset titled “${title}”.`;
    return (failure as Error).message;
  };

  const begin = async (shown: Dataset): Promise<Tagged<Dataset> | null> => {
    setMessage('');
    try {
      const current = await readDataset(shown.id);
      if (current.value.title !== shown.title) {
        setMessage(`“${shown.title}” was renamed meanwhile; the current title is shown.`);
        props.onChanged();
      }
      return current;
    } catch (failure) {
      setMessage(explain(failure));
      props.onChanged();
      return null;
    }
  };

  const rename = async (event: Event) => {
    event.preventDefault();
    if (!renaming) return;
    const title = renaming.title.trim();
    if (!title) return setMessage('A dataset needs a title.');
    setBusy(true);
    try {
      await renameDataset(renaming.current.value.id, title, renaming.current.etag);
      setRenaming(null);
    } catch (failure) {
      setMessage(explain(failure, title));
      if (failure instanceof ApiError && failure.status === 412) setRenaming(null);
    } finally {
      setBusy(false);
      props.onChanged();
    }
  };

  // The server refuses what would break the rule (images in jobs, ground truth held): its words are shown.
  const toggleManagersOnly = async (shown: Dataset, managersOnly: boolean) => {
    setToggling({ id: shown.id, to: managersOnly });
    const current = await begin(shown);
    if (!current) return setToggling(null);
    setBusy(true);
    try {
      await setManagersOnly(current.value.id, managersOnly, current.etag);
    } catch (failure) {
      setMessage(explain(failure));
      setToggling(null);
    } finally {
      setBusy(false);
      props.onChanged();
    }
  };

  const add = async (event: Event) => {
    event.preventDefault();
    const title = newTitle.trim();
    if (!title) return;
    setBusy(true);
    setMessage('');
    try {
      await createDataset(props.projectId, title, newManagersOnly);
      setNewTitle('');
      setNewManagersOnly(false);
      props.onChanged();
    } catch (failure) {
      setMessage(explain(failure, title));
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await deleteDataset(deleting.current.value.id, deleting.current.etag);
      setDeleting(null);
      props.onChanged();
    } catch (failure) {
      setDialogError(explain(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="schema-section" aria-labelledby="datasets-title">
      <h2 id="datasets-title">Datasets</h2>
      {message && (
        <p class="error" role="alert">
          {message}
        </p>
      )}
      {props.datasets.length === 0 && <p class="quiet-text">No datasets yet: images are imported into one.</p>}
      {!props.readOnly && (
        <p class="quiet-text" id="managers-only-note">
          A dataset marked <strong>Managers only</strong> is seen by the project’s managers alone: to annotators, reviewers and viewers it and its images do not exist. Ground truth belongs there, so that
          nobody finds the image a honeypot copies.
        </p>
      )}
      <ul class="schema-rows" aria-label="Datasets">
        {props.datasets.map((d) => {
          const here = renaming?.current.value.id === d.id ? renaming : null;
          return (
            <li key={d.id} class="schema-row">
              <div class="row-main">
                {here ? (
                  <form class="inline-form" onSubmit={(e) => void rename(e)}>
                    <input aria-label={`New title of ${d.title}`} value={here.title} maxLength={255} autoFocus onInput={(e) => setRenaming({ ...here, title: (e.currentTarget as HTMLInputElement).value })} />
                    <button type="submit" disabled={busy}>
                      Save title
                    </button>
                    <button type="button" class="quiet" onClick={() => setRenaming(null)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  <Link class="row-title" href={`/projects/${props.projectId}/images?dataset=${d.id}`}>
                    {d.title}
                  </Link>
                )}
                {d.managersOnly && (
                  <span class="managers-badge" title="Seen by the project’s managers only">
                    Managers only
                  </span>
                )}
                <span class="row-count">
                  {counted(d.counts?.images ?? 0, 'image')} · {counted(d.counts?.objects ?? 0, 'object')}
                </span>
                {!props.readOnly && !here && (
                  <span class="row-actions">
                    <label class="managers-toggle">
                      <input
                        type="checkbox"
                        checked={toggling?.id === d.id ? toggling.to : d.managersOnly}
                        disabled={busy}
                        aria-describedby="managers-only-note"
                        aria-label={`${d.title}: managers only`}
                        onChange={(e) => void toggleManagersOnly(d, (e.currentTarget as HTMLInputElement).checked)}
                      />
                      Managers only
                    </label>
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Rename ${d.title}`}
                      onClick={() => void begin(d).then((current) => current && setRenaming({ current, title: current.value.title }))}
                    >
                      Rename
                    </button>
                    <button
                      type="button"
                      class="quiet danger-text"
                      aria-label={`Delete ${d.title}`}
                      onClick={() => {
                        setDialogError('');
                        void begin(d).then((current) => current && setDeleting({ current, shown: d }));
                      }}
                    >
                      Delete…
                    </button>
                  </span>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {!props.readOnly && (
        <form class="inline-form add-dataset" onSubmit={(e) => void add(e)}>
          <label for="new-dataset">New dataset</label>
          <input id="new-dataset" value={newTitle} maxLength={255} onInput={(e) => setNewTitle((e.currentTarget as HTMLInputElement).value)} />
          <label class="managers-toggle">
            <input type="checkbox" checked={newManagersOnly} aria-describedby="managers-only-note" onChange={(e) => setNewManagersOnly((e.currentTarget as HTMLInputElement).checked)} />
            Managers only
          </label>
          <button type="submit" disabled={busy || !newTitle.trim()}>
            Add dataset
          </button>
        </form>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the dataset “${deleting?.current.value.title ?? ''}”?`}
        confirmLabel="Delete dataset"
        busy={busy}
        error={dialogError}
        onConfirm={() => void remove()}
        onCancel={() => setDeleting(null)}
      >
        {deleting && (
          <p>
            Its <strong>{counted(deleting.shown.counts?.images ?? 0, 'image')}</strong> and {counted(deleting.shown.counts?.objects ?? 0, 'object')} are deleted with it. This cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
