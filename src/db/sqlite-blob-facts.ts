// The facts of image blobs (size, width, height), as an annotation thread asks them of a SQLite
// database: through better-sqlite3 alone. A thread that loaded Kysely and pg for this one statement
// answered its first batch about 190 ms later, and a large import waits for that first batch.
import SQLite from 'better-sqlite3';
import type { ImageFacts } from '../repositories/staging.repository.ts';
import { sqliteFile } from './sqlite-file.ts';

export class SqliteBlobFacts {
  readonly #connection: SQLite.Database;
  readonly #statement: SQLite.Statement<[string], string>;

  constructor(dataDir: string) {
    this.#connection = new SQLite(sqliteFile(dataDir), { fileMustExist: true });
    try {
      this.#connection.pragma('busy_timeout = 5000');
      // The rows as one JSON text, each named by its place in the list (see jsonRowsOf in dialect.ts).
      this.#statement = this.#connection
        .prepare<[string], string>('select json_group_array(json_array(l.key, b.size, b.width, b.height)) from json_each(?) as l join blobs b on b.hash = l.value')
        .pluck();
    } catch (error) {
      // A database without its tables yet: no connection is left open for the next try.
      this.#connection.close();
      throw error;
    }
  }

  /** The facts of the stored blobs among `hashes`, by hash. */
  lookUp(hashes: readonly string[]): Map<string, ImageFacts> {
    const facts = new Map<string, ImageFacts>();
    if (hashes.length === 0) return facts;
    const rows = JSON.parse(this.#statement.get(JSON.stringify(hashes))!) as [number, number, number | null, number | null][];
    for (const [position, size, width, height] of rows) facts.set(hashes[position]!, { size, width, height });
    return facts;
  }

  close(): void {
    this.#connection.close();
  }
}
