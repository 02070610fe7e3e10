// The statuses a task goes through, in one list: the tasks table, the API's schemas and the metrics'
// gauges all take it from here.
export const TASK_STATUSES = ['queued', 'started', 'finished', 'error', 'terminating', 'stopped'] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The statuses a task does not leave. */
export const ENDED_STATUSES: readonly TaskStatus[] = ['finished', 'error', 'stopped'];
