// Export what the gallery shows (the project, or its chosen dataset), or a version of the project: pick a format and options,
// start, follow the task's progress, and download the archive once it is made.
import { useEffect, useState } from 'preact/hooks';
import { EXPORT_FORMATS, type ExportFormat, type Task, exportArchiveUrl, startExport } from '../api.ts';
import { followTask } from '../task-stream.ts';
import { DEFAULT_CHOICES, type ExportChoices, ExportOptions, requestOptions } from './export-options.tsx';

const FORMAT_NAMES: Record<ExportFormat, string> = {
  supervisely: 'Supervisely',
  coco: 'COCO',
  yolo: 'YOLO',
  pascal_voc: 'Pascal VOC',
  masks: 'Masks (PNG)',
};

/** `classTitles`: the project's classes, for the class subset. */
/** With `version`, that version of the project is exported. Shown to the project's managers only: the API's POST /v2/exports is theirs. */
export function ExportForm(props: { projectId: number; datasetId?: number; version?: number; name: string; classTitles: string[] }) {
  const [format, setFormat] = useState<ExportFormat>('coco');
  const [choices, setChoices] = useState<ExportChoices>(DEFAULT_CHOICES);
  const [task, setTask] = useState<Task | null>(null);
  const [error, setError] = useState('');

  useEffect(() => (task && ['queued', 'started', 'terminating'].includes(task.status) ? followTask(task.id, setTask) : undefined), [task?.id]);

  const start = async (event: SubmitEvent) => {
    event.preventDefault();
    setError('');
    try {
      setTask(
        await startExport({
          projectId: props.projectId,
          ...(props.datasetId ? { datasetIds: [props.datasetId] } : {}),
          ...(props.version ? { version: props.version } : {}),
          format,
          options: requestOptions(format, choices, props.classTitles),
        }),
      );
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const progress = (task?.meta as { progress?: { done: number; total: number } } | undefined)?.progress;
  const failure = (task?.meta as { error?: { message?: string } } | undefined)?.error?.message;
  const running = task !== null && ['queued', 'started', 'terminating'].includes(task.status);
  return (
    <form class="export-form" onSubmit={start} aria-label={`Export ${props.name}`}>
      <label for="export-format">Format</label>
      <select id="export-format" value={format} disabled={running} onChange={(e) => setFormat((e.currentTarget as HTMLSelectElement).value as ExportFormat)}>
        {EXPORT_FORMATS.map((f) => (
          <option key={f} value={f}>
            {FORMAT_NAMES[f]}
          </option>
        ))}
      </select>
      <ExportOptions format={format} choices={choices} onChange={setChoices} classTitles={props.classTitles} disabled={running} />
      <button type="submit" disabled={running}>
        Export {props.name}
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {task && (
        <div class="export-state" role="status">
          {running && progress && <progress max={Math.max(1, progress.total)} value={progress.done} aria-label={`Export progress: ${progress.done} of ${progress.total} images`} />}
          {running && <span>Export {task.status}…</span>}
          {task.status === 'finished' && (
            // The server names the file (Content-Disposition).
            <a href={exportArchiveUrl(task.id)} download>
              Download the archive
            </a>
          )}
          {task.status === 'error' && <span class="error">Export failed: {failure ?? 'no reason given'}</span>}
          {task.status === 'stopped' && <span>Export stopped.</span>}
        </div>
      )}
    </form>
  );
}
