// A project's title and description, changed under If-Match, and the project deleted once the user
// has read what goes with it and typed its title.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Project, type Tagged, changeProject, deleteProject, readProject } from '../api.ts';
import { CHANGED_MEANWHILE, counted } from '../counting.ts';
import { navigate } from '../router.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';

interface Props {
  project: Tagged<Project>;
  holds: { datasets: number; images: number; objects: number; classes: number };
  readOnly: boolean;
  onChanged: () => void;
}

export function ProjectDetails(props: Props) {
  const { value: project } = props.project;
  const [title, setTitle] = useState(project.title);
  const [description, setDescription] = useState(project.description);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [deleting, setDeleting] = useState<Tagged<Project> | null>(null);
  const [dialogError, setDialogError] = useState('');
  // The fields follow the project when it is read again (after a change, or someone else's).
  useEffect(() => {
    setTitle(project.title);
    setDescription(project.description);
  }, [props.project.etag]);

  const changed = title.trim() !== project.title || description !== project.description;
  const save = async (event: Event) => {
    event.preventDefault();
    if (!title.trim()) return setMessage({ text: 'A project needs a title.', error: true });
    setBusy(true);
    try {
      // The ETag is the one of the version the fields were filled from.
      await changeProject(project.id, { title: title.trim(), description }, props.project.etag);
      setMessage({ text: 'Saved.', error: false });
    } catch (failure) {
      setMessage({ text: failure instanceof ApiError && failure.status === 412 ? CHANGED_MEANWHILE : (failure as Error).message, error: true });
    } finally {
      setBusy(false);
      props.onChanged();
    }
  };

  const askDelete = async () => {
    setDialogError('');
    try {
      const current = await readProject(project.id);
      if (current.etag !== props.project.etag) props.onChanged();
      setDeleting(current);
    } catch (failure) {
      setMessage({ text: (failure as Error).message, error: true });
    }
  };
  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await deleteProject(project.id, deleting.etag);
      navigate('/');
    } catch (failure) {
      setDialogError(failure instanceof ApiError && failure.status === 412 ? CHANGED_MEANWHILE : (failure as Error).message);
      setBusy(false);
    }
  };

  const { holds } = props;
  return (
    <section class="schema-section" aria-labelledby="project-title">
      <h2 id="project-title">Project</h2>
      <form class="project-form" onSubmit={(e) => void save(e)}>
        <label for="project-name">Title</label>
        <input id="project-name" value={title} maxLength={255} readOnly={props.readOnly} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
        <label for="project-description">Description</label>
        <textarea id="project-description" rows={2} value={description} readOnly={props.readOnly} onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)} />
        {!props.readOnly && (
          <div class="form-actions start">
            <button type="submit" disabled={busy || !changed}>
              Save
            </button>
            {message && (
              <span class={message.error ? 'error' : 'quiet-text'} role={message.error ? 'alert' : 'status'}>
                {message.text}
              </span>
            )}
          </div>
        )}
      </form>
      <p class="quiet-text">
        Holds {counted(holds.datasets, 'dataset')}, {counted(holds.images, 'image')}, {counted(holds.objects, 'object')} and {counted(holds.classes, 'class', 'classes')}.
      </p>
      {!props.readOnly && (
        <div class="danger-zone">
          <button type="button" class="danger" onClick={() => void askDelete()}>
            Delete project…
          </button>
        </div>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the project “${project.title}”?`}
        confirmLabel="Delete project"
        typeToConfirm={deleting?.value.title ?? project.title}
        busy={busy}
        error={dialogError}
        onConfirm={() => void remove()}
        onCancel={() => setDeleting(null)}
      >
        <p>
          Deleted with it: <strong>{counted(holds.datasets, 'dataset')}</strong>, <strong>{counted(holds.images, 'image')}</strong>, <strong>{counted(holds.objects, 'object')}</strong>,{' '}
          {counted(holds.classes, 'class', 'classes')} and its tags. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
