// The team's tasks (imports, exports, thumbnails): live progress of those still running (their event
// streams), a stop button, and the reason of those that failed.
import { useEffect, useState } from 'preact/hooks';
import { type Session, type Task, followTask, listTasks, stopTask } from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';

const ACTIVE = new Set(['queued', 'started', 'terminating']);
/** Event streams open at once; the server allows a team 32. */
const FOLLOWED = 8;

interface Progress {
  done: number;
  total: number;
}

const progressOf = (task: Task): Progress | null => {
  const progress = (task.meta as { progress?: Partial<Progress> }).progress;
  return progress && typeof progress.done === 'number' && typeof progress.total === 'number' ? { done: progress.done, total: progress.total } : null;
};
const errorOf = (task: Task): string | null => {
  const error = (task.meta as { error?: { code?: string; message?: string } }).error;
  return error ? `${error.message ?? 'failed'}${error.code ? ` (${error.code})` : ''}` : null;
};

export function TasksPage(props: { session: Session; onSignOut: () => void }) {
  const [tasks, setTasks] = useState<Task[] | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    document.title = 'Tasks · Annostore';
    listTasks().then(setTasks, (failure: Error) => setError(failure.message));
  }, []);

  const update = (task: Task) => setTasks((before) => before?.map((t) => (t.id === task.id ? task : t)) ?? null);
  const followed = (tasks ?? []).filter((t) => ACTIVE.has(t.status)).slice(0, FOLLOWED).map((t) => t.id);
  const followedKey = followed.join(',');
  useEffect(() => {
    const stops = followed.map((id) => followTask(id, update));
    return () => stops.forEach((stop) => stop());
  }, [followedKey]);

  const stop = async (id: number) => {
    try {
      update(await stopTask(id));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <>
      <Header
        session={props.session}
        onSignOut={props.onSignOut}
        trail={
          <ol>
            <li>
              <Link href="/">Projects</Link>
            </li>
            <li>
              <span aria-current="page">Tasks</span>
            </li>
          </ol>
        }
      />
      <main class="tasks">
        <h1>Tasks</h1>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {!tasks && !error && <p role="status">Loading tasks…</p>}
        {tasks?.length === 0 && <p>No tasks yet.</p>}
        <ul class="task-list">
          {tasks?.map((task) => {
            const progress = progressOf(task);
            const failure = errorOf(task);
            const label = `Task ${task.id}, ${task.type}`;
            return (
              <li key={task.id} class={`task-row status-${task.status}`} aria-label={label}>
                <span class="task-title">
                  #{task.id} {task.type}
                </span>
                <span class="task-status">{task.status}</span>
                {progress ? (
                  <span class="task-progress">
                    <progress max={Math.max(1, progress.total)} value={progress.done} aria-label={`${label}: ${progress.done} of ${progress.total}`} />
                    <span aria-hidden="true">
                      {progress.done.toLocaleString('en')} / {progress.total.toLocaleString('en')}
                    </span>
                  </span>
                ) : (
                  <span class="task-when">{new Date(task.finishedAt ?? task.startedAt ?? task.createdAt).toLocaleString('en')}</span>
                )}
                {ACTIVE.has(task.status) && task.status !== 'terminating' && (
                  <button type="button" class="quiet" onClick={() => void stop(task.id)} aria-label={`Stop task ${task.id}`}>
                    Stop
                  </button>
                )}
                {failure && <span class="task-error">{failure}</span>}
              </li>
            );
          })}
        </ul>
      </main>
    </>
  );
}
