// The page's one event stream of the team's tasks (GET /v2/tasks/events), shared by whatever on the page
// follows tasks (the tasks list, the import form, the export form). A browser holds at most 6
// connections to a host over HTTP/1.1: a stream per task would leave none for the page's other
// requests, or for another tab. The stream opens with the first listener and closes with the last.
import { type Task, getTask } from './api.ts';

export interface TaskListener {
  /** A task as it is now: from the snapshot, or created or changed since. */
  onTask(task: Task): void;
  /** The tasks running when the stream (re)opened, after onTask got each of them. */
  onSnapshot?(tasks: Task[]): void;
  /** A task was removed. */
  onRemoved?(id: number): void;
}

/** How long after a refused stream (a 429, the server restarting) it is opened again. */
const REOPEN_MS = 5000;
const ENDED = new Set(['finished', 'error', 'stopped']);

const listeners = new Set<TaskListener>();
/** Listeners that hear the stream while others keep it open, but do not open it themselves. */
const passive = new Set<TaskListener>();
const everyone = (): TaskListener[] => [...listeners, ...passive];
let source: EventSource | null = null;
let reopen: ReturnType<typeof setTimeout> | undefined;

function open(): void {
  const events = new EventSource('/v2/tasks/events');
  source = events;
  events.addEventListener('snapshot', (event: MessageEvent<string>) => {
    const { tasks } = JSON.parse(event.data) as { tasks: Task[] };
    for (const listener of everyone()) {
      tasks.forEach((task) => listener.onTask(task));
      listener.onSnapshot?.(tasks);
    }
  });
  events.addEventListener('task', (event: MessageEvent<string>) => {
    const task = JSON.parse(event.data) as Task;
    for (const listener of everyone()) listener.onTask(task);
  });
  events.addEventListener('removed', (event: MessageEvent<string>) => {
    const { id } = JSON.parse(event.data) as { id: number };
    for (const listener of everyone()) listener.onRemoved?.(id);
  });
  // A dropped connection is retried by the EventSource itself (sending Last-Event-ID); a refused
  // one closes it, and it is opened again a little later while anyone still listens.
  events.onerror = () => {
    if (events.readyState !== EventSource.CLOSED || source !== events) return;
    source = null;
    reopen = setTimeout(() => {
      reopen = undefined;
      if (listeners.size > 0 && !source) open();
    }, REOPEN_MS);
  };
}

/**
 * Listens to the page's task stream, opening it if needed; answers a function that stops listening.
 * A `passive` listener hears it only while another keeps it open (a list that shows what a form on the
 * same page follows, without holding a connection of its own all the time).
 */
export function watchTasks(listener: TaskListener, options: { passive?: boolean } = {}): () => void {
  if (options.passive) {
    passive.add(listener);
    return () => void passive.delete(listener);
  }
  listeners.add(listener);
  if (!source && reopen === undefined) open();
  return () => {
    listeners.delete(listener);
    if (listeners.size > 0) return;
    source?.close();
    source = null;
    clearTimeout(reopen);
    reopen = undefined;
  };
}

/**
 * Follows one task: `onTask` gets it now and at each change, up to its final state. Answers a
 * function that stops following.
 */
export function followTask(id: number, onTask: (task: Task) => void): () => void {
  let heard = false;
  let stopped = false;
  const stop = watchTasks({
    onTask(task) {
      if (task.id !== id || stopped) return;
      heard = true;
      onTask(task);
      if (ENDED.has(task.status)) stopOnce();
    },
    onSnapshot(tasks) {
      // A snapshot holds only tasks not ended, and the stream sends nothing later of a task that had
      // ended before it: one missing from it may have ended since it was last read, so it is read again.
      if (!tasks.some((task) => task.id === id)) readOnce(true);
    },
    onRemoved(removed) {
      if (removed === id) stopOnce();
    },
  });
  function stopOnce() {
    if (stopped) return;
    stopped = true;
    stop();
  }
  /** Reads the task; what is read counts unless the stream has spoken of it first (or `always`). */
  function readOnce(always: boolean) {
    getTask(id).then(
      (task) => {
        if ((always || !heard) && !stopped) {
          onTask(task);
          if (ENDED.has(task.status)) stopOnce();
        }
      },
      () => undefined,
    );
  }
  // The stream may be open already, its snapshot past: a task that ended before this listened is read once.
  readOnce(false);
  return stopOnce;
}
