// Each task names the project it works on (an import's target, an export's source, the thumbnails of
// an import's images), so the tasks list can be narrowed to one project and show its title. Null for
// work of no single project: an upload's thumbnails, a DTL graph. No foreign key: a task outlives its
// project as history, and the list then shows no title.
//
// Tasks made before this learn their project from what they already hold: an import's meta, an
// export's input, a thumbnails task's import. An export's format is copied into its meta likewise.
import type { Kysely } from 'kysely';

interface Row {
  id: number;
  type: string;
  meta: string;
  input: string | null;
}

const parse = (text: string | null): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text ?? '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const integer = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) ? value : null);

/** Rows read at once while filling in the existing tasks. */
const BATCH = 1000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('project_id', 'integer').execute();
  await db.schema.createIndex('tasks_team_project_idx').on('tasks').columns(['team_id', 'project_id', 'id']).execute();
  // Typed loosely: a migration sees the schema of its time, not today's Database.
  const k = db as Kysely<{ tasks: { id: number; type: string; meta: string; project_id: number | null }; task_inputs: { task_id: number; input: string } }>;
  const importProject = new Map<number, number>();
  for (let after = 0; ; ) {
    const rows: Row[] = await k
      .selectFrom('tasks')
      .leftJoin('task_inputs', 'task_inputs.task_id', 'tasks.id')
      .select(['tasks.id as id', 'tasks.type as type', 'tasks.meta as meta', 'task_inputs.input as input'])
      .where('tasks.id', '>', after)
      .where('tasks.type', 'in', ['import', 'export', 'thumbnails'])
      .orderBy('tasks.id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    for (const row of rows) {
      const meta = parse(row.meta);
      const input = parse(row.input);
      let projectId: number | null = null;
      let newMeta: Record<string, unknown> | undefined;
      if (row.type === 'import') {
        projectId = integer((meta.project as { id?: unknown } | undefined)?.id);
        if (projectId !== null) importProject.set(row.id, projectId);
      } else if (row.type === 'export') {
        projectId = integer(input.projectId);
        const format = (input.writer as { format?: unknown } | undefined)?.format;
        if (typeof format === 'string' && meta.format === undefined) newMeta = { ...meta, format };
      } else {
        const importTaskId = integer(input.importTaskId);
        projectId = importTaskId === null ? null : (importProject.get(importTaskId) ?? null);
      }
      if (projectId === null && !newMeta) continue;
      await k
        .updateTable('tasks')
        .set({ ...(projectId === null ? {} : { project_id: projectId }), ...(newMeta ? { meta: JSON.stringify(newMeta) } : {}) })
        .where('id', '=', row.id)
        .execute();
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_team_project_idx').execute();
  await db.schema.alterTable('tasks').dropColumn('project_id').execute();
}
