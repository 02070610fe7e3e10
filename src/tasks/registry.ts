// Every task type the service runs, with its handler. A worker runs only the types listed here; each
// task type's module registers its handler in this map, and the map's type makes a type without a
// handler a compile error.
import type { Context } from '../context.ts';
import type { TaskHandler } from './handler.ts';
import { dtlProjectHandler } from './handlers/dtl-export.ts';
import { embeddingsHandler } from './handlers/embeddings.handler.ts';
import { exportHandler } from './handlers/export.handler.ts';
import { importHandler } from './handlers/import.handler.ts';
import { thumbnailsHandler } from './handlers/thumbnails.handler.ts';

export const TASK_TYPES = ['import', 'export', 'thumbnails', 'dtl', 'embeddings'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

export function taskHandlers(_ctx: Context): Record<TaskType, TaskHandler> {
  return { import: importHandler, export: exportHandler, thumbnails: thumbnailsHandler, dtl: dtlProjectHandler, embeddings: embeddingsHandler };
}
