// A new, empty project: its title and description; then its settings page, to give it classes and
// datasets.
import { useState } from 'preact/hooks';
import { createProject } from '../api.ts';
import { navigate } from '../router.ts';
import '../schema.css';

export function NewProjectForm(props: { onCancel: () => void }) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!title.trim()) return setError('A project needs a title.');
    setBusy(true);
    try {
      const project = await createProject({ title: title.trim(), ...(description.trim() ? { description: description.trim() } : {}) });
      navigate(`/projects/${project.id}/settings`);
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
    }
  };

  return (
    <form class="new-project" aria-labelledby="new-project-title" onSubmit={(e) => void submit(e)}>
      <h2 id="new-project-title">New project</h2>
      <label for="new-project-name">Title</label>
      <input id="new-project-name" value={title} maxLength={255} required autoFocus onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
      <label for="new-project-description">Description</label>
      <textarea id="new-project-description" rows={2} value={description} onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)} />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="form-actions">
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create project'}
        </button>
      </div>
    </form>
  );
}
