// Many rows in one INSERT without Kysely's query builder. For 500 rows of 11 columns the builder makes,
// checks and compiles 5,500 value nodes a statement: half a second of a large import's own thread.
// Here the statement's text is made once per table, columns, row count and dialect, and each call
// only lays out the values.
import { CompiledQuery, type Kysely } from 'kysely';
import { isPostgres } from './dialect.ts';
import type { Database } from './types.ts';

const texts = new Map<string, string>();

const quoted = (name: string) => `"${name}"`;

function statementText(postgres: boolean, table: string, columns: readonly string[], count: number, returning: readonly string[]): string {
  const key = `${postgres}\0${table}\0${columns.join(',')}\0${count}\0${returning.join(',')}`;
  let text = texts.get(key);
  if (text === undefined) {
    let n = 0;
    const row = () => `(${columns.map(() => (postgres ? `$${++n}` : '?')).join(', ')})`;
    text = `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values ${Array.from({ length: count }, row).join(', ')}`;
    if (returning.length > 0) text += ` returning ${returning.map(quoted).join(', ')}`;
    texts.set(key, text);
  }
  return text;
}

/**
 * Inserts `rows` (each its values in the order of `columns`) into `table` in one statement; answers
 * the `returning` columns of the new rows, in no promised order. Callers keep a statement to a few
 * thousand values: both dialects limit the parameters of one.
 */
export async function insertRows<T extends keyof Database & string, R = never>(
  db: Kysely<Database>,
  table: T,
  columns: readonly (keyof Database[T] & string)[],
  rows: readonly unknown[][],
  returning: readonly (keyof Database[T] & string)[] = [],
): Promise<R[]> {
  if (rows.length === 0) return [];
  const postgres = isPostgres(db);
  if (postgres) return execute<R>(db, statementText(true, table, columns, rows.length, returning), rows);
  const answered: R[] = [];
  for (const [start, count] of sqlitePieces(rows.length)) {
    answered.push(...(await execute<R>(db, statementText(false, table, columns, count, returning), rows.slice(start, start + count))));
  }
  return answered;
}

async function execute<R>(db: Kysely<Database>, text: string, rows: readonly unknown[][]): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, rows.flat()))).rows;
}

/**
 * SQLite prepares each statement text once per connection (create-db.ts keeps them), and preparing one
 * of 700 rows of 40 values takes about 10 ms. Rows whose number varies from call to call (the
 * image_classes rows of a batch of images) made a new text each time, prepared once and never used
 * again: 2 s of a large import. So a call's rows go in pieces whose sizes are powers of two, the
 * largest first: any number of rows is one of a few texts, each prepared once.
 */
function sqlitePieces(total: number): [start: number, count: number][] {
  const pieces: [number, number][] = [];
  let start = 0;
  for (let size = 2 ** Math.floor(Math.log2(total)); start < total; size /= 2) {
    if (total - start >= size) {
      pieces.push([start, size]);
      start += size;
    }
  }
  return pieces;
}
