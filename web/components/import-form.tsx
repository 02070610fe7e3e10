// Import a folder of images as a new project: choose it (or drop it here), watch it being hashed,
// uploaded (only what the server lacks) and imported.
import { useEffect, useState } from 'preact/hooks';
import { type Task, followTask } from '../api.ts';
import { type ImportProgress, folderName, importFolder } from '../folder-import.ts';

const PHASES = { hash: 'Hashing', upload: 'Uploading', start: 'Starting the import' };

export function ImportForm(props: { onImported: () => void; readOnly: boolean }) {
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [task, setTask] = useState<Task | null>(null);
  const [note, setNote] = useState('');
  const [error, setError] = useState('');

  useEffect(() => {
    if (!task || !['queued', 'started', 'terminating'].includes(task.status)) return;
    return followTask(task.id, (now) => {
      setTask(now);
      if (now.status === 'finished') props.onImported();
    });
  }, [task?.id]);

  const run = async (files: File[]) => {
    setError('');
    setTask(null);
    setNote('');
    try {
      const { task: started, uploaded, skipped } = await importFolder(files, folderName(files), setProgress);
      setProgress(null);
      setNote(`${uploaded} uploaded, ${skipped} already on the server.`);
      setTask(started);
    } catch (failure) {
      setProgress(null);
      setError((failure as Error).message);
    }
  };

  const busy = progress !== null || (task !== null && ['queued', 'started'].includes(task.status));
  const taskProgress = (task?.meta as { progress?: { done: number; total: number } } | undefined)?.progress;
  const failure = (task?.meta as { error?: { message?: string } } | undefined)?.error?.message;
  return (
    <section
      class="import"
      aria-labelledby="import-title"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length && !busy && !props.readOnly) void run(files);
      }}
    >
      <h2 id="import-title">Import a folder of images</h2>
      <p class="quiet-text">A new project named after the folder; each subfolder becomes a dataset. Files the server already has are not sent again.</p>
      <label for="import-folder" class="file-button">
        Choose a folder…
      </label>
      <input
        id="import-folder"
        type="file"
        multiple
        // A folder, not files: the browser reads it whole (webkitdirectory).
        {...{ webkitdirectory: true }}
        disabled={busy || props.readOnly}
        onChange={(e) => {
          const input = e.currentTarget as HTMLInputElement;
          const files = [...(input.files ?? [])];
          input.value = '';
          if (files.length) void run(files);
        }}
      />
      <div role="status" class="import-state">
        {progress && (
          <>
            <span>
              {PHASES[progress.phase]} {progress.phase === 'start' ? '' : `${progress.done} of ${progress.total}`}
            </span>
            <progress max={Math.max(1, progress.total)} value={progress.done} aria-label={`${PHASES[progress.phase]}: ${progress.done} of ${progress.total}`} />
          </>
        )}
        {note && <span>{note}</span>}
        {task && (
          <span>
            Import {task.status}
            {taskProgress && task.status === 'started' ? `: ${taskProgress.done} of ${taskProgress.total} images` : ''}
            {task.status === 'finished' ? '.' : ''}
          </span>
        )}
      </div>
      {(error || failure) && (
        <p class="error" role="alert">
          {error || `Import failed: ${failure}`}
        </p>
      )}
    </section>
  );
}
