// What a task's meta tells a reader: its progress, its error, an import's warnings, an export's archive.
import type { Task } from './api.ts';

export const ACTIVE_STATUSES = new Set(['queued', 'started', 'terminating']);
/** Task types that follow what a user did (an import's or upload's thumbnails): folded away by default. */
export const HOUSEKEEPING_TYPES = new Set(['thumbnails']);

export interface Progress {
  done: number;
  total: number;
}

export interface Warning {
  path: string;
  message: string;
}

export const FORMAT_NAMES: Record<string, string> = {
  supervisely: 'Supervisely',
  coco: 'COCO',
  yolo: 'YOLO',
  pascal_voc: 'Pascal VOC',
  masks: 'Masks (PNG)',
};

export const formatName = (format: string | null): string | null => (format === null ? null : (FORMAT_NAMES[format] ?? format));

export function progressOf(task: Task): Progress | null {
  const progress = (task.meta as { progress?: Partial<Progress> }).progress;
  return progress && typeof progress.done === 'number' && typeof progress.total === 'number' ? { done: progress.done, total: progress.total } : null;
}

export function errorOf(task: Task): string | null {
  const error = (task.meta as { error?: { code?: string; message?: string } }).error;
  return error ? `${error.message ?? 'failed'}${error.code ? ` (${error.code})` : ''}` : null;
}

/** An import's warnings (the first ones kept) and how many there were in all. */
export function warningsOf(task: Task): { list: Warning[]; total: number } {
  const meta = task.meta as { warnings?: unknown; moreWarnings?: unknown };
  const list = Array.isArray(meta.warnings)
    ? meta.warnings.filter((w): w is Warning => typeof w === 'object' && w !== null && typeof (w as Warning).message === 'string').map((w) => ({ path: String(w.path ?? ''), message: w.message }))
    : [];
  return { list, total: list.length + (typeof meta.moreWarnings === 'number' ? meta.moreWarnings : 0) };
}

/** Whether a finished export's archive can still be downloaded (it is removed after a while). */
export const hasArchive = (task: Task): boolean => task.type === 'export' && task.status === 'finished' && (task.meta as { expiredAt?: unknown }).expiredAt === undefined && (task.meta as { path?: unknown }).path !== undefined;

export const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
