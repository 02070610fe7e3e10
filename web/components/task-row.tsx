// One task of the tasks list: what it is and for which project, how far it got, and what came of it
// (its error, an import's warnings, an export's archive to download).
import { type Task, exportArchiveUrl } from '../api.ts';
import { ACTIVE_STATUSES, errorOf, formatName, progressOf } from '../task-text.ts';
import { Link } from './link.tsx';
import { TaskWarnings } from './task-warnings.tsx';

/** Without `onStop`, no Stop is offered: the task's project is not the caller's to manage. */
export function TaskRow(props: { task: Task; onStop?: ((id: number) => void) | undefined; downloadable: boolean }) {
  const { task } = props;
  const progress = progressOf(task);
  const failure = errorOf(task);
  const format = formatName(task.format);
  const label = `Task ${task.id}, ${task.type}`;
  return (
    <li class={`task-row status-${task.status}`} aria-label={label}>
      <span class="task-title">
        #{task.id} {task.type}
        {format && <span class="task-format"> · {format}</span>}
      </span>
      <span class="task-project">
        {task.project ? task.project.title !== null ? <Link href={`/projects/${task.project.id}/images`}>{task.project.title}</Link> : <span class="quiet-text">project removed</span> : <span class="quiet-text">no project</span>}
      </span>
      <span class="task-status">{task.status}</span>
      {progress && ACTIVE_STATUSES.has(task.status) ? (
        <span class="task-progress">
          <progress max={Math.max(1, progress.total)} value={progress.done} aria-label={`${label}: ${progress.done} of ${progress.total}`} />
          <span aria-hidden="true">
            {progress.done.toLocaleString('en')} / {progress.total.toLocaleString('en')}
          </span>
        </span>
      ) : (
        <span class="task-when">{new Date(task.finishedAt ?? task.startedAt ?? task.createdAt).toLocaleString('en')}</span>
      )}
      <span class="task-action">
        {props.onStop && ACTIVE_STATUSES.has(task.status) && task.status !== 'terminating' && (
          <button type="button" class="quiet" onClick={() => props.onStop!(task.id)} aria-label={`Stop task ${task.id}`}>
            Stop
          </button>
        )}
        {props.downloadable && (
          // The server names the file (Content-Disposition).
          <a href={exportArchiveUrl(task.id)} download aria-label={`Download export ${task.id}`}>
            Download
          </a>
        )}
      </span>
      {failure && <span class="task-error">{failure}</span>}
      <TaskWarnings task={task} />
    </li>
  );
}
