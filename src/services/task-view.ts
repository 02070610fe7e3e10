// A task as API v2 shows it (and as task events carry it): the size as an integer, when it was
// created, the project it works on and the format it reads or writes.
import type { TaskRow } from '../db/types.ts';
import { type TaskEntry, type TaskStatus, parseDocument } from '../repositories/tasks.repository.ts';

export interface TaskView {
  id: number;
  type: string;
  status: TaskStatus;
  size: number;
  meta: Record<string, unknown>;
  project: { id: number; title: string | null } | null;
  /** An import's or an export's format (meta.format); null for other work. */
  format: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const formatOf = (meta: Record<string, unknown>): string | null => (typeof meta.format === 'string' ? meta.format : null);

export const toTaskView = (task: TaskEntry): TaskView => ({
  id: task.id,
  type: task.type,
  status: task.status,
  size: Number(task.size),
  meta: task.meta,
  project: task.project,
  format: formatOf(task.meta),
  createdAt: task.createdAt,
  startedAt: task.startedAt,
  finishedAt: task.finishedAt,
});

/** The view of a task row as read inside the transaction that changed it, with its project's title. */
export const taskViewOfRow = (row: TaskRow, projectTitle: string | null): TaskView => ({
  id: row.id,
  type: row.type,
  status: row.status as TaskStatus,
  size: Number(row.size),
  meta: parseDocument(row.meta),
  project: row.project_id === null ? null : { id: row.project_id, title: projectTitle },
  format: formatOf(parseDocument(row.meta)),
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});
