// Helpers for the few places where SQLite and PostgreSQL differ.
import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Expression, type Kysely, PostgresAdapter, type SqlBool, sql } from 'kysely';

export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Adds an auto-increment integer primary key whose values are never reused. */
export function withIdColumn<T extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, never>,
): CreateTableBuilder<T, 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'serial', (col) => col.primaryKey())
    : // AUTOINCREMENT keeps SQLite from reusing the id of a deleted row.
      table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
}

export const notNull = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder => col.notNull();

/** The unique-constraint violation of either driver (SQLite's code or PostgreSQL's SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * `column IN (values)` with the whole list as one bound parameter (a JSON array on SQLite, an array on
 * PostgreSQL): a list of thousands costs one parameter, not thousands to build and bind.
 */
export function inTextList(db: Kysely<unknown>, column: string, values: readonly string[]): Expression<SqlBool> {
  return isPostgres(db)
    ? sql<SqlBool>`${sql.ref(column)} = any(${values as string[]}::text[])`
    : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
}
