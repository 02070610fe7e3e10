// PostgreSQL's snapshot as a version of the whole database. A snapshot (xmin:xmax:running xids) stays
// the same until a transaction that took a transaction id ends, here or in any other process (a write,
// a NOTIFY, a row lock, an ANALYZE; in any database of the server), and two statements that see the
// same snapshot see the same data. So an answer read with its snapshot may be kept and served again
// for as long as the snapshot stays the same; a statement can even test it against the snapshot it
// runs in, with no race between the test and the read. Transaction ids start over where a server is
// restored from a backup or fails over to a replica that missed commits, so the version also names
// the server's start.
import { type Kysely, type RawBuilder, sql } from 'kysely';

const VERSION_TEXT = /^\d+:\d+:(\d+(,\d+)*)?@[0-9 :.+-]+$/;

const version = sql<string>`(pg_current_snapshot()::text || '@' || pg_postmaster_start_time()::text)`;

/** The version a statement runs in, as text; written inside a statement's select list. */
export const statementSnapshot: RawBuilder<string> = sql<string>`(select ${version})`;

/** The version now, as text. */
export async function currentSnapshot<DB>(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ snapshot: string }>`select ${version} as snapshot`.execute(db);
  return rows[0]!.snapshot;
}

/** True in a statement that runs in version `snapshot`; a literal, so it fits a COPY statement too. */
export function inSnapshot(snapshot: string): RawBuilder<boolean> {
  if (!VERSION_TEXT.test(snapshot)) throw new Error(`not a PostgreSQL snapshot: ${snapshot.slice(0, 60)}`);
  return sql<boolean>`(${version} = ${sql.lit(snapshot)})`;
}
