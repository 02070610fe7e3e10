// A task as API v2 shows it (and as task events carry it): the size as an integer, and when it was created.
import type { TaskRow } from '../db/types.ts';
import { type TaskEntry, type TaskStatus, parseDocument } from '../repositories/tasks.repository.ts';

export interface TaskView {
  id: number;
  type: string;
  status: TaskStatus;
  size: number;
  meta: Record<string, unknown>;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export const toTaskView = (task: TaskEntry): TaskView => ({
  id: task.id,
  type: task.type,
  status: task.status,
  size: Number(task.size),
  meta: task.meta,
  createdAt: task.createdAt,
  startedAt: task.startedAt,
  finishedAt: task.finishedAt,
});

/** The view of a task row as read inside the transaction that changed it. */
export const taskViewOfRow = (row: TaskRow): TaskView => ({
  id: row.id,
  type: row.type,
  status: row.status as TaskStatus,
  size: Number(row.size),
  meta: parseDocument(row.meta),
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});
