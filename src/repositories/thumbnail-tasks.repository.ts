// What the thumbnails task asks of the tasks table: whether an import's task exists, whether other
// tasks wait behind it.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/types.ts';

/** Whether a thumbnails task was queued for the import task `importTaskId` (its first part). */
export async function hasImportThumbnailsTask(db: Kysely<Database>, importTaskId: number): Promise<boolean> {
  const row = await db
    .selectFrom('tasks')
    .innerJoin('task_inputs', 'task_inputs.task_id', 'tasks.id')
    .select(sql`1`.as('one'))
    .where('tasks.type', '=', 'thumbnails')
    .where('task_inputs.input', '=', JSON.stringify({ importTaskId }))
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a task of another type than thumbnails, queued after `taskId`, waits for a worker. */
export async function othersQueuedAfter(db: Kysely<Database>, taskId: number): Promise<boolean> {
  const row = await db
    .selectFrom('tasks')
    .select('id')
    .where('status', '=', 'queued')
    .where('id', '>', taskId)
    .where('type', '<>', 'thumbnails')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** How many images the import task made (its items that became an image), of its items after `after`. */
export async function countImportedImages(db: Kysely<Database>, importTaskId: number, after: number): Promise<number> {
  const row = await db
    .selectFrom('import_items')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('task_id', '=', importTaskId)
    .where('item', '>', after)
    .where('image_id', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
