// Import a folder as a new project or into one there is: choose it (or drop it here), see what it is
// (its format, what will be sent, what is left out and why), then watch it being hashed, uploaded
// (only what the server lacks) and imported.
import { useEffect, useState } from 'preact/hooks';
import { FORMAT_NAMES, PRESETS } from '../../src/client/folder-format.ts';
import type { Task } from '../api.ts';
import { followTask } from '../task-stream.ts';
import { plural, warningsOf } from '../task-text.ts';
import { TaskWarnings } from './task-warnings.tsx';
import {
  type DroppedFolder,
  type ImportPlan,
  type ImportProgress,
  type ImportTarget,
  chosenFolder,
  droppedEntries,
  droppedFolder,
  planCounts,
  planImport,
  runImport,
} from '../folder-import.ts';

const capital = (text: string) => text.replace(/^./, (c) => c.toUpperCase());
/** The formats a user may insist on, by preset; 0 lets the folder decide. */
const FORMATS = [{ preset: 0, name: 'Found in the folder' }, ...Object.entries(PRESETS).map(([format, preset]) => ({ preset, name: capital(FORMAT_NAMES[format as keyof typeof PRESETS]) }))].sort(
  (a, b) => a.preset - b.preset,
);

/** What an import into a project does with an image whose name its dataset has already. */
const ON_CONFLICT = [
  { value: 'ignore', label: 'Keep the one there' },
  { value: 'replace', label: 'Replace it with the new one' },
  { value: 'rename', label: 'Keep both (the new one renamed)' },
] as const;
type OnConflict = (typeof ON_CONFLICT)[number]['value'];

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
const megabytes = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/** The folder as the import will take it, shown before anything is sent. */
function PlanSummary(props: { plan: ImportPlan }) {
  const { images, imageBytes, others, ignored } = planCounts(props.plan);
  return (
    <div class="import-plan" aria-label="What will be imported">
      <p>
        <strong>{capital(FORMAT_NAMES[props.plan.format])}</strong>: {count(images, 'image', 'images')} ({megabytes(imageBytes)}),{' '}
        {count(others, 'class or annotation file', 'class and annotation files')}
        {ignored > 0 ? `; ${count(ignored, 'other file', 'other files')} left out` : ''}.
      </p>
      {props.plan.notes.length > 0 && (
        <ul class="import-notes">
          {props.plan.notes.slice(0, 5).map((note) => (
            <li key={note}>{note}</li>
          ))}
          {props.plan.notes.length > 5 && <li>… and {props.plan.notes.length - 5} more</li>}
        </ul>
      )}
    </div>
  );
}

export function ImportForm(props: { onImported: () => void; readOnly: boolean; projects: readonly { id: number; title: string }[] }) {
  const [reading, setReading] = useState(false);
  const [folder, setFolder] = useState<DroppedFolder | null>(null);
  const [preset, setPreset] = useState(0);
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [title, setTitle] = useState('');
  /** The project imported into: 0 for a new one titled `title`. */
  const [into, setInto] = useState(0);
  const [onConflict, setOnConflict] = useState<OnConflict>('ignore');
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

  /** Plans the import of a folder (as the folder decides, or in the format chosen); nothing is sent until the user starts it. */
  const replan = async (dropped: DroppedFolder, format: number) => {
    setError('');
    setPlan(null);
    try {
      setPlan(await planImport(dropped, format));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  /** Reads a folder just chosen or dropped. */
  const take = async (read: () => Promise<DroppedFolder>) => {
    setError('');
    setTask(null);
    setNote('');
    setPlan(null);
    setFolder(null);
    setReading(true);
    try {
      const dropped = await read();
      setFolder(dropped);
      setTitle(dropped.name);
      // As annostore import does: a folder whose name is a project's title continues that project.
      setInto(props.projects.find((p) => p.title === dropped.name)?.id ?? 0);
      await replan(dropped, preset);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setReading(false);
    }
  };

  const start = async () => {
    if (!plan) return;
    setError('');
    try {
      const target: ImportTarget = into ? { projectId: into, onConflict } : { title: title.trim() || plan.root };
      const started = await runImport(plan, target, setProgress);
      setPlan(null);
      setFolder(null);
      setNote(`${started.uploaded} uploaded, ${started.skipped} already on the server${started.documents ? `; ${count(started.documents, 'class or annotation file', 'class and annotation files')} sent` : ''}.`);
      setTask(started.task);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setProgress(null);
    }
  };

  const [dragging, setDragging] = useState(false);
  const busy = reading || progress !== null || (task !== null && ['queued', 'started'].includes(task.status));
  const taskProgress = (task?.meta as { progress?: { done: number; total: number } } | undefined)?.progress;
  const failure = (task?.meta as { error?: { message?: string } } | undefined)?.error?.message;
  return (
    <section
      class={dragging ? 'import dragging' : 'import'}
      aria-labelledby="import-title"
      onDragOver={(e) => {
        e.preventDefault();
        if (!busy && !props.readOnly) setDragging(true);
      }}
      onDragLeave={(e) => {
        // Leaving for a child of the form is still over it.
        if (!(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget))) setDragging(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        if (!e.dataTransfer || busy || props.readOnly) return;
        // The items can be read only now, while the drop is handled; their folders are walked after.
        const entries = droppedEntries(e.dataTransfer);
        if (entries.length) void take(() => droppedFolder(entries));
      }}
    >
      <h2 id="import-title">Import a folder</h2>
      <p class="quiet-text">
        A Supervisely project, a COCO, Pascal VOC or YOLO dataset, or a folder of images (each subfolder a dataset) becomes a new project or joins one. Files the
        server already has are not sent again.
      </p>
      <div class="import-pick">
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
            if (files.length) void take(async () => chosenFolder(files));
          }}
        />
        <label class="import-format">
          Format{' '}
          <select
            value={preset}
            disabled={busy || props.readOnly}
            onChange={(e) => {
              const chosen = Number((e.currentTarget as HTMLSelectElement).value);
              setPreset(chosen);
              if (folder) void replan(folder, chosen);
            }}
          >
            {FORMATS.map((f) => (
              <option key={f.preset} value={f.preset}>
                {f.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {plan && !progress && (
        <form
          class="import-start"
          onSubmit={(e) => {
            e.preventDefault();
            void start();
          }}
        >
          <PlanSummary plan={plan} />
          <label>
            Into{' '}
            <select value={into} onChange={(e) => setInto(Number((e.currentTarget as HTMLSelectElement).value))}>
              <option value={0}>A new project</option>
              {props.projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {/* Titles need not be unique: a shared one is told apart by its id. */}
                  {props.projects.some((other) => other.id !== p.id && other.title === p.title) ? `${p.title} (#${p.id})` : p.title}
                </option>
              ))}
            </select>
          </label>
          {into === 0 ? (
            <label>
              Project title <input value={title} maxLength={255} required onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
            </label>
          ) : (
            <label>
              When an image’s name is there already{' '}
              <select value={onConflict} onChange={(e) => setOnConflict((e.currentTarget as HTMLSelectElement).value as OnConflict)}>
                {ON_CONFLICT.map((choice) => (
                  <option key={choice.value} value={choice.value}>
                    {choice.label}
                  </option>
                ))}
              </select>
            </label>
          )}
          <div class="import-actions">
            <button type="submit" disabled={props.readOnly}>
              Import
            </button>
            <button
              type="button"
              class="quiet"
              onClick={() => {
                setPlan(null);
                setFolder(null);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
      <div role="status" class="import-state">
        {reading && <span>Reading the folder…</span>}
        {progress && (
          <>
            <span>
              Hashed {progress.hashed} of {progress.images}
            </span>
            <progress max={Math.max(1, progress.images)} value={progress.hashed} aria-label={`Hashed: ${progress.hashed} of ${progress.images} images`} />
            {/* Nothing is queued before the first hash answers: no "0 of 0" meanwhile. */}
            {progress.queued > 0 && (
              <>
                <span>
                  Uploaded {progress.uploaded} of {progress.queued}
                </span>
                <progress max={progress.queued} value={progress.uploaded} aria-label={`Uploaded: ${progress.uploaded} of ${progress.queued} files`} />
              </>
            )}
            {progress.rateLimitWait > 0 && <span>Waiting {progress.rateLimitWait} s (rate limit)</span>}
            {progress.starting && <span>Starting the import…</span>}
          </>
        )}
        {note && <span>{note}</span>}
        {task && (
          <span>
            Import {task.status}
            {taskProgress && task.status === 'started' ? `: ${taskProgress.done} of ${taskProgress.total} images` : ''}
            {task.status === 'finished' ? '.' : ''}
            {task.status === 'finished' && warningsOf(task).total > 0 ? ` It gave ${plural(warningsOf(task).total, 'warning', 'warnings')}:` : ''}
          </span>
        )}
      </div>
      {task && !['queued', 'started'].includes(task.status) && <TaskWarnings task={task} open />}
      {(error || failure) && (
        <p class="error" role="alert">
          {error || `Import failed: ${failure}`}
        </p>
      )}
    </section>
  );
}
