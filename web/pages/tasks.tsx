// The team's tasks (imports, exports, thumbnails), newest first, a page at a time ("Show older tasks"
// follows the list's cursor): live progress of those still running (their event streams), tasks
// started elsewhere added as they appear, a stop button, and the reason of those that failed.
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Session, type Task, followTask, listTasks, stopTask } from '../api.ts';
import { Header } from '../components/header.tsx';

const ACTIVE = new Set(['queued', 'started', 'terminating']);
/** Event streams open at once; the server allows a team 32. */
const FOLLOWED = 8;
/** Tasks asked for a page. */
const PAGE = 50;
/** How often the page looks for tasks started since it loaded (by anyone: another tab, the CLI, a script). */
const NEWER_EVERY_MS = 3000;
/**
 * Pages read at most in one look for newer tasks. When a burst is larger than this, the pages read
 * replace the list, and "Show older tasks" goes on from the last of them: no task is skipped.
 */
const NEWER_PAGES = 4;

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

/** What the page has read: the tasks so far, where the next page starts (null: none left), and how many there are. */
interface Listed {
  tasks: Task[];
  next: string | null;
  total: number | null;
}

export function TasksPage(props: { session: Session; onSignOut: () => void }) {
  const [listed, setListed] = useState<Listed | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState('');
  const tasks = listed?.tasks ?? null;

  useEffect(() => {
    document.title = 'Tasks · Annostore';
    listTasks({ limit: PAGE, count: true }).then(
      (page) => setListed({ tasks: page.items, next: page.nextCursor, total: page.total ?? null }),
      (failure: Error) => setError(failure.message),
    );
  }, []);

  const loadMore = async () => {
    if (!listed?.next || loadingMore) return;
    setLoadingMore(true);
    try {
      const page = await listTasks({ limit: PAGE, cursor: listed.next });
      setListed((before) => {
        if (!before) return before;
        // Pages go by id: a task is never on two of them, but a repeated click must not add one twice.
        const known = new Set(before.tasks.map((t) => t.id));
        return { ...before, tasks: [...before.tasks, ...page.items.filter((t) => !known.has(t.id))], next: page.nextCursor };
      });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setLoadingMore(false);
    }
  };

  // A task started anywhere shows up: the newest pages are read again until one reaches a task already
  // shown, and what they hold replaces what was shown (a task not followed by its stream moves on too).
  const loaded = listed !== null;
  const shown = useRef<Task[]>([]);
  shown.current = tasks ?? [];
  useEffect(() => {
    if (!loaded) return;
    let cancelled = false;
    const lookForNewer = async () => {
      if (document.hidden) return;
      const fresh: Task[] = [];
      let cursor: string | undefined;
      let total: number | undefined;
      let reachedShown = false;
      for (let read = 0; read < NEWER_PAGES; read++) {
        const page = await listTasks({ limit: PAGE, cursor, count: read === 0 });
        total ??= page.total;
        fresh.push(...page.items);
        cursor = page.nextCursor ?? undefined;
        const oldest = page.items[page.items.length - 1]?.id;
        reachedShown = !page.nextCursor || oldest === undefined || oldest <= (shown.current[0]?.id ?? 0);
        if (reachedShown) break;
      }
      if (cancelled) return;
      setListed((before) => {
        if (!before) return before;
        if (!reachedShown) return { tasks: fresh, next: cursor ?? null, total: total ?? before.total };
        const byId = new Map(fresh.map((t) => [t.id, t]));
        const known = new Set(before.tasks.map((t) => t.id));
        const newer = fresh.filter((t) => !known.has(t.id) && t.id > (before.tasks[0]?.id ?? 0));
        const tasks = [...newer, ...before.tasks.map((t) => byId.get(t.id) ?? t)];
        return { ...before, tasks, total: total ?? before.total };
      });
    };
    const timer = setInterval(() => void lookForNewer().catch(() => undefined), NEWER_EVERY_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [loaded]);

  const update = (task: Task) => setListed((before) => before && { ...before, tasks: before.tasks.map((t) => (t.id === task.id ? task : t)) });
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
        trail={[{ label: 'Tasks' }]}
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
        {listed && listed.tasks.length > 0 && (
          <div class="task-more">
            <p role="status">
              {listed.total !== null && listed.total > listed.tasks.length
                ? `${listed.tasks.length.toLocaleString('en')} of ${listed.total.toLocaleString('en')} tasks shown`
                : `${listed.tasks.length.toLocaleString('en')} ${listed.tasks.length === 1 ? 'task' : 'tasks'}`}
            </p>
            {listed.next && (
              <button type="button" class="quiet" onClick={() => void loadMore()} aria-disabled={loadingMore}>
                {loadingMore ? 'Loading…' : `Show older tasks`}
              </button>
            )}
          </div>
        )}
      </main>
    </>
  );
}
