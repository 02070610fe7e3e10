// Every task type the service runs, with its handler. A worker runs only the types listed here; each
// task type's module registers its handler in this map.
import type { Context } from '../context.ts';
import type { TaskHandler } from './handler.ts';
import { importHandler } from './handlers/import.handler.ts';

export function taskHandlers(_ctx: Context): Record<string, TaskHandler> {
  return { import: importHandler };
}
