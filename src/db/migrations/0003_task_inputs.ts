// A task's input (an import's whole item list: megabytes for a large import) moves out of the tasks
// row. SQLite rewrites a whole row on every update, and the row is updated at every lease renewal and
// progress write; the input, written once and read once per claim, belongs in a table of its own.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('task_inputs')
    .addColumn('task_id', 'integer', (c) => c.primaryKey().references('tasks.id').onDelete('cascade'))
    .addColumn('input', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into task_inputs (task_id, input) select id, input from tasks`.execute(db);
  await db.schema.alterTable('tasks').dropColumn('input').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('input', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await sql`update tasks set input = (select input from task_inputs where task_inputs.task_id = tasks.id)`.execute(db);
  await db.schema.dropTable('task_inputs').execute();
}
