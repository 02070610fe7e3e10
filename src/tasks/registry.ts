// Every task type the service runs, with its handler. A worker runs only the types listed here; each
// task type's module registers its handler in this map (the import handler goes here).
import type { Context } from '../context.ts';
import type { TaskHandler } from './handler.ts';

export function taskHandlers(_ctx: Context): Record<string, TaskHandler> {
  return {};
}
