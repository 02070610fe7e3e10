// An import's plan (one item per image: a hundred thousand for a large import) moves out of the task's
// input into parts of a table of its own. Written and read a part at a time, it is never one string of
// tens of megabytes in memory, nor that string's copies on its way into and out of the database.
// Import tasks created before keep working: their items move here.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

/** Items a part holds; the same figure as PLAN_PART_ITEMS in import.repository.ts when written. */
const PART_ITEMS = 5000;

interface InputRow {
  task_id: number;
  input: string;
}

async function importInputs(db: Kysely<unknown>): Promise<InputRow[]> {
  const { rows } = await sql<InputRow>`
    select i.task_id, i.input from task_inputs i join tasks t on t.id = i.task_id where t.type = 'import'`.execute(db);
  return rows;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('import_plans')
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_plans_pk', ['task_id', 'part'])
    .execute();
  if (isPostgres(db)) await notifyChangesOf(db, 'import_plans');
  for (const row of await importInputs(db)) {
    const { items = [], ...rest } = JSON.parse(row.input) as { items?: unknown[] };
    for (let part = 0; part * PART_ITEMS < items.length; part += 1) {
      const slice = JSON.stringify(items.slice(part * PART_ITEMS, (part + 1) * PART_ITEMS));
      await sql`insert into import_plans (task_id, part, items) values (${row.task_id}, ${part}, ${slice})`.execute(db);
    }
    await sql`update task_inputs set input = ${JSON.stringify(rest)} where task_id = ${row.task_id}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const row of await importInputs(db)) {
    const { rows } = await sql<{ items: string }>`
      select items from import_plans where task_id = ${row.task_id} order by part`.execute(db);
    const items = rows.flatMap((r) => JSON.parse(r.items) as unknown[]);
    const input = { ...(JSON.parse(row.input) as object), items };
    await sql`update task_inputs set input = ${JSON.stringify(input)} where task_id = ${row.task_id}`.execute(db);
  }
  await db.schema.dropTable('import_plans').execute();
}
