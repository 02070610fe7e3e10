// A project's last exports, each with its format, when it was made and its archive to download while
// the server keeps it; an export started on this page joins the list as it runs.
import { useEffect, useState } from 'preact/hooks';
import { type Task, exportArchiveUrl, listTasks } from '../api.ts';
import { watchTasks } from '../task-stream.ts';
import { ACTIVE_STATUSES, formatName, hasArchive } from '../task-text.ts';
import { Link } from './link.tsx';

const SHOWN = 5;

export function PastExports(props: { projectId: number }) {
  const [exports, setExports] = useState<Task[] | null>(null);

  useEffect(() => {
    let cancelled = false;
    setExports(null);
    listTasks({ type: 'export', projectId: props.projectId, limit: SHOWN }).then(
      (page) => !cancelled && setExports(page.items),
      () => !cancelled && setExports([]),
    );
    // Passive: the export form's stream, while it follows an export, brings it here too.
    const stop = watchTasks(
      {
        onTask(task) {
          if (task.type !== 'export' || task.project?.id !== props.projectId) return;
          setExports((before) => {
            if (!before) return before;
            if (before.some((t) => t.id === task.id)) return before.map((t) => (t.id === task.id ? task : t));
            return [task, ...before].slice(0, SHOWN);
          });
        },
      },
      { passive: true },
    );
    return () => {
      cancelled = true;
      stop();
    };
  }, [props.projectId]);

  if (!exports || exports.length === 0) return null;
  return (
    <div class="past-exports">
      <h3>Past exports</h3>
      <ul>
        {exports.map((task) => (
          <li key={task.id}>
            <span>
              {formatName(task.format) ?? 'Export'} · {new Date(task.finishedAt ?? task.createdAt).toLocaleDateString('en')}
            </span>
            {hasArchive(task) ? (
              <a href={exportArchiveUrl(task.id)} download aria-label={`Download export ${task.id}`}>
                Download
              </a>
            ) : (
              <span class="quiet-text">{task.status === 'finished' ? 'expired' : ACTIVE_STATUSES.has(task.status) ? `${task.status}…` : task.status}</span>
            )}
          </li>
        ))}
      </ul>
      <Link href={`/tasks?type=export&project=${props.projectId}`}>All exports of this project</Link>
    </div>
  );
}
