// Helpers for the few places where SQLite and PostgreSQL differ.
import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/** Takes a Kysely of any schema: the question is about the driver, not the tables. */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
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
 * A list of strings as a table `alias` with a column `value`, in the list's order: something to
 * select from (and to correlate subqueries with) when the question is asked of each member. Where a
 * member stands in the list is listPosition(db, alias).
 */
export function textListTable<DB>(db: Kysely<DB>, values: readonly string[], alias: string): RawBuilder<unknown> {
  return isPostgres(db)
    ? sql`unnest(${values as string[]}::text[]) with ordinality as ${sql.table(alias)}(value, position)`
    : sql`json_each(${JSON.stringify(values)}) as ${sql.table(alias)}`;
}

/** A list of integers as textListTable makes one of strings: a table `alias` with a column `value`. */
export function integerListTable<DB>(db: Kysely<DB>, values: readonly number[], alias: string): RawBuilder<unknown> {
  return isPostgres(db)
    ? sql`unnest(${values as number[]}::bigint[]) with ordinality as ${sql.table(alias)}(value, position)`
    : sql`json_each(${JSON.stringify(values)}) as ${sql.table(alias)}`;
}

/**
 * Lets each sort or hash of the transaction's later statements use up to `megabytes` of memory before
 * it spills to temporary files (PostgreSQL's work_mem, 4 MB by default; SQLite has no such limit).
 * Only for a transaction whose statements are known to need it.
 */
export async function allowWorkMemory<DB>(db: Kysely<DB>, megabytes: number): Promise<void> {
  if (isPostgres(db)) await sql`set local work_mem = ${sql.lit(`${megabytes}MB`)}`.execute(db);
}

/** The index (from 0) in its list of a member of textListTable(db, …, alias), as an integer. */
export function listPosition<DB>(db: Kysely<DB>, alias: string): RawBuilder<number> {
  return isPostgres(db) ? sql<number>`(${sql.ref(`${alias}.position`)} - 1)::int` : sql<number>`${sql.ref(`${alias}.key`)}`;
}

/**
 * The rows of a query folded into one JSON text, an array of arrays of `values` (SQLite gives `[]` for
 * no row, PostgreSQL null): read it with jsonRows(). A hundred thousand rows cost a third less as one
 * text than handed to JavaScript one object each.
 */
export function jsonRowsOf<DB>(db: Kysely<DB>, values: readonly RawBuilder<unknown>[]): RawBuilder<string | null> {
  const row = sql.join(values);
  return isPostgres(db) ? sql<string | null>`json_agg(json_build_array(${row}))::text` : sql<string | null>`json_group_array(json_array(${row}))`;
}

/** The rows of a jsonRowsOf() column. */
export function jsonRows<Row extends unknown[]>(text: string | null | undefined): Row[] {
  return text ? (JSON.parse(text) as Row[]) : [];
}

/** Whether text column `column` holds `text` anywhere, exactly (case and all). */
export function containsText<DB>(db: Kysely<DB>, column: string, text: string): RawBuilder<boolean> {
  return isPostgres(db) ? sql<boolean>`(strpos(${sql.ref(column)}, ${text}) > 0)` : sql<boolean>`(instr(${sql.ref(column)}, ${text}) > 0)`;
}

/**
 * What kind of failure a statement's error is, for the error counter: `constraint` (a unique or
 * foreign key violation, which a service may answer as a 409), `busy` (a lock wait or serialization
 * failure, which is retried), or `other` (worth a look).
 */
export function databaseErrorKind(error: unknown): 'constraint' | 'busy' | 'other' {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'other';
  if (code.startsWith('SQLITE_CONSTRAINT') || code.startsWith('23')) return 'constraint';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code === '40001' || code === '40P01' || code === '55P03') return 'busy';
  return 'other';
}
