// The team's tasks, newest first, a page at a time ("Show older tasks" follows the list's cursor),
// narrowed by type, project and status (kept in the URL). Housekeeping (the thumbnails that follow
// each import) is folded into one line unless asked for. Everything live comes from the page's one
// task stream: progress, tasks started elsewhere, their end.
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Project, type Session, type Task, type TaskFilter, listProjects, listTasks, stopTask } from '../api.ts';
import { Header } from '../components/header.tsx';
import { TaskRow } from '../components/task-row.tsx';
import { type Location, navigate } from '../router.ts';
import { watchTasks } from '../task-stream.ts';
import { ACTIVE_STATUSES, HOUSEKEEPING_TYPES, hasArchive, plural, progressOf } from '../task-text.ts';
import { allows, useProjectRoles } from '../project-role.ts';

/** Tasks asked for a page. */
const PAGE = 50;
const TYPES = ['import', 'export', 'thumbnails', 'dtl'];
const STATUSES = ['queued', 'started', 'terminating', 'finished', 'error', 'stopped'];
/** Task states from the stream kept, to reconcile with list reads. */
const HEARD = 2000;

/** What the page has read: the tasks so far, where the next page starts (null: none left), and how many there are. */
interface Listed {
  tasks: Task[];
  next: string | null;
  total: number | null;
}

/** The filter the URL names. */
function filterOf(params: URLSearchParams): TaskFilter {
  const projectId = Number(params.get('project'));
  const type = params.get('type') ?? '';
  const status = params.get('status') ?? '';
  return {
    ...(TYPES.includes(type) ? { type } : {}),
    ...(Number.isSafeInteger(projectId) && projectId > 0 ? { projectId } : {}),
    ...(STATUSES.includes(status) ? { status } : {}),
    housekeeping: params.get('housekeeping') === '1',
  };
}

const RANK: Record<string, number> = { queued: 0, started: 1, terminating: 2, finished: 3, error: 3, stopped: 3 };
/** The later of two states of one task: the stream and a list read cross, and either may be older. */
function later(a: Task, b: Task | undefined): Task {
  if (!b) return a;
  const rank = (RANK[b.status] ?? 0) - (RANK[a.status] ?? 0);
  if (rank !== 0) return rank > 0 ? b : a;
  return (progressOf(b)?.done ?? 0) >= (progressOf(a)?.done ?? 0) ? b : a;
}

const matches = (task: Task, filter: TaskFilter): boolean =>
  (filter.type === undefined || task.type === filter.type) &&
  (filter.projectId === undefined || task.project?.id === filter.projectId) &&
  (filter.status === undefined || task.status === filter.status) &&
  (filter.housekeeping || filter.type !== undefined || !HOUSEKEEPING_TYPES.has(task.type));

export function TasksPage(props: { session: Session; onSignOut: () => void; location: Location }) {
  const [listed, setListed] = useState<Listed | null>(null);
  const [projects, setProjects] = useState<Project[]>([]);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState('');
  /** Housekeeping tasks running now, folded into one line while they are hidden. */
  const [housekeeping, setHousekeeping] = useState<Map<number, Task>>(new Map());
  const filter = filterOf(props.location.params);
  const filterKey = JSON.stringify(filter);
  const current = useRef(filter);
  current.current = filter;
  /** The last state the stream told of each task: a list read that crossed it must not undo it. */
  const heard = useRef(new Map<number, Task>());
  const tasks = listed?.tasks ?? null;
  // Stopping a task of a project is its managers'; a task of no project keeps the team's rules.
  const roles = useProjectRoles((tasks ?? []).flatMap((t) => (t.project ? [t.project.id] : [])));
  const mayStop = (task: Task) => !task.project || allows(roles.get(task.project.id), 'manager');

  const setFilter = (change: Partial<Record<'type' | 'project' | 'status' | 'housekeeping', string>>) => {
    const params = new URLSearchParams(props.location.params);
    for (const [name, value] of Object.entries(change)) {
      if (value) params.set(name, value);
      else params.delete(name);
    }
    const text = params.toString();
    navigate(`/tasks${text ? `?${text}` : ''}`, { replace: true });
  };

  useEffect(() => {
    document.title = 'Tasks · Annostore';
    listProjects().then(setProjects, () => undefined);
  }, []);

  useEffect(() => {
    setListed(null);
    setError('');
    let cancelled = false;
    listTasks({ ...filter, limit: PAGE, count: true }).then(
      (page) => !cancelled && setListed({ tasks: page.items.map((t) => later(t, heard.current.get(t.id))), next: page.nextCursor, total: page.total ?? null }),
      (failure: Error) => !cancelled && setError(failure.message),
    );
    return () => {
      cancelled = true;
    };
  }, [filterKey]);

  // The stream goes on across filter changes: what it tells is checked against the filter of the moment.
  useEffect(
    () =>
      watchTasks({
        onTask(task) {
          heard.current.delete(task.id);
          heard.current.set(task.id, task);
          // The oldest told go first: a page left open for days keeps a bounded memory.
          if (heard.current.size > HEARD) heard.current.delete(heard.current.keys().next().value!);
          if (HOUSEKEEPING_TYPES.has(task.type)) {
            setHousekeeping((before) => {
              const after = new Map(before);
              if (ACTIVE_STATUSES.has(task.status)) after.set(task.id, task);
              else after.delete(task.id);
              return after;
            });
          }
          setListed((before) => {
            if (!before) return before;
            if (before.tasks.some((t) => t.id === task.id)) return { ...before, tasks: before.tasks.map((t) => (t.id === task.id ? task : t)) };
            // A task new since the list was read goes on top; an older one is on a page not read yet.
            if (!matches(task, current.current) || task.id < (before.tasks[0]?.id ?? 0)) return before;
            return { ...before, tasks: [task, ...before.tasks], total: before.total === null ? null : before.total + 1 };
          });
        },
        onSnapshot(running) {
          setHousekeeping(new Map(running.filter((t) => HOUSEKEEPING_TYPES.has(t.type)).map((t) => [t.id, t])));
        },
        onRemoved(id) {
          setListed((before) => before && { ...before, tasks: before.tasks.filter((t) => t.id !== id), total: before.total === null ? null : before.total - 1 });
        },
      }),
    [],
  );

  const loadMore = async () => {
    if (!listed?.next || loadingMore) return;
    setLoadingMore(true);
    try {
      const page = await listTasks({ ...filter, limit: PAGE, cursor: listed.next });
      setListed((before) => {
        if (!before) return before;
        // Pages go by id: a task is never on two of them, but a repeated click must not add one twice.
        const known = new Set(before.tasks.map((t) => t.id));
        return { ...before, tasks: [...before.tasks, ...page.items.filter((t) => !known.has(t.id)).map((t) => later(t, heard.current.get(t.id)))], next: page.nextCursor };
      });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setLoadingMore(false);
    }
  };

  const stop = async (id: number) => {
    try {
      const task = await stopTask(id);
      setListed((before) => before && { ...before, tasks: before.tasks.map((t) => (t.id === task.id ? task : t)) });
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const folded = !filter.housekeeping && filter.type === undefined;
  const foldedTasks = [...housekeeping.values()].filter((t) => filter.projectId === undefined || t.project?.id === filter.projectId);
  const foldedProgress = foldedTasks.reduce((sum, t) => ({ done: sum.done + (progressOf(t)?.done ?? 0), total: sum.total + (progressOf(t)?.total ?? 0) }), { done: 0, total: 0 });
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: 'Tasks' }]} />
      <main class="tasks">
        <h1>Tasks</h1>
        <form class="task-filters" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
          <label>
            Type
            <select value={filter.type ?? ''} onChange={(e) => setFilter({ type: (e.currentTarget as HTMLSelectElement).value })}>
              <option value="">All</option>
              {TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </label>
          <label>
            Project
            <select value={filter.projectId ?? ''} onChange={(e) => setFilter({ project: (e.currentTarget as HTMLSelectElement).value })}>
              <option value="">All</option>
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.title}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select value={filter.status ?? ''} onChange={(e) => setFilter({ status: (e.currentTarget as HTMLSelectElement).value })}>
              <option value="">All</option>
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          </label>
          <label class="check">
            <input type="checkbox" checked={filter.housekeeping} disabled={filter.type !== undefined} onChange={() => setFilter({ housekeeping: filter.housekeeping ? '' : '1' })} />
            Show housekeeping
          </label>
        </form>
        {folded && foldedTasks.length > 0 && (
          <p class="task-housekeeping" role="status">
            Making thumbnails: {plural(foldedTasks.length, 'task', 'tasks')} running
            {foldedProgress.total > 0 ? `, ${foldedProgress.done.toLocaleString('en')} of ${foldedProgress.total.toLocaleString('en')} images` : ''}.{' '}
            <button type="button" class="quiet" onClick={() => setFilter({ housekeeping: '1' })}>
              Show them
            </button>
          </p>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {!tasks && !error && <p role="status">Loading tasks…</p>}
        {tasks?.length === 0 && <p>No tasks{filterKey === JSON.stringify({ housekeeping: false }) ? ' yet' : ' match these filters'}.</p>}
        <ul class="task-list">
          {tasks?.map((task) => (
            <TaskRow key={task.id} task={task} onStop={mayStop(task) ? (id) => void stop(id) : undefined} downloadable={hasArchive(task)} />
          ))}
        </ul>
        {listed && listed.tasks.length > 0 && (
          <div class="task-more">
            <p role="status">
              {listed.total !== null && listed.total > listed.tasks.length
                ? `${listed.tasks.length.toLocaleString('en')} of ${listed.total.toLocaleString('en')} tasks shown`
                : plural(listed.tasks.length, 'task', 'tasks')}
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
