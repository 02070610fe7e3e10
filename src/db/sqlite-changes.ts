// Tells cheaply whether an SQLite database may have changed since an earlier moment, so answers read
// from it can be kept until it does.
import { performance } from 'node:perf_hooks';
import type SQLite from 'better-sqlite3';

/**
 * How long a reading of `data_version` stands. Reading it takes SQLite's read lock on the WAL index
 * (two fcntl calls, about five microseconds: as much as a whole kept answer costs otherwise), so a
 * busy server reads it at most once a millisecond.
 */
const DATA_VERSION_TTL_MS = 1;

/**
 * A number that goes up whenever the database may have changed: at once when a statement of this
 * connection changed rows (`total_changes()`, counted when the statement completes), and within
 * DATA_VERSION_TTL_MS when any other connection, in any process, committed (`data_version`).
 *
 * Why a stamp taken before a read stays sound: this connection runs one statement or transaction at a
 * time (Kysely's SQLite driver holds it for the whole transaction), so a read after the stamp sees
 * either the state before a write of this process or the committed state after it, and in both cases
 * a later stamp differs. Another connection's commit moves `data_version` only once it is visible.
 *
 * While a transaction of this connection is open there is no stamp: its snapshot hides other
 * connections' commits from `data_version` until it ends.
 */
export class SqliteChangeStamp {
  private readonly totalChanges: SQLite.Statement<[], number>;
  private readonly dataVersion: SQLite.Statement<[], number>;
  private lastChanges = -1;
  private lastDataVersion = -1;
  private dataVersionReadAt = -Infinity;
  private stamp = 0;

  constructor(private readonly connection: SQLite.Database) {
    this.totalChanges = connection.prepare<[], number>('select total_changes()').pluck();
    this.dataVersion = connection.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** The stamp, or undefined while a transaction is open or once the connection is closed. */
  current(): number | undefined {
    if (this.connection.inTransaction || !this.connection.open) return undefined;
    const changes = this.totalChanges.get()!;
    let dataVersion = this.lastDataVersion;
    const now = performance.now();
    if (now - this.dataVersionReadAt >= DATA_VERSION_TTL_MS) {
      dataVersion = this.dataVersion.get()!;
      this.dataVersionReadAt = now;
    }
    if (changes !== this.lastChanges || dataVersion !== this.lastDataVersion) {
      this.lastChanges = changes;
      this.lastDataVersion = dataVersion;
      this.stamp++;
    }
    return this.stamp;
  }
}
