// Opens the database the Config names: SQLite (better-sqlite3, WAL) in DATA_DIR by default, PostgreSQL
// (pg) when DATABASE_URL is set. Dialect differences stay in this folder.
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, type KyselyConfig, type LogEvent, PostgresDialect, SqliteDialect, type SqliteDatabase, type SqliteDialectConfig, SqliteDriver, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { PostgresChangeStamp, reportingStatements } from './pg-changes.ts';
import { copyOut } from './pg-copy.ts';
import { RetryingWhenBusy } from './sqlite-busy-retry.ts';
import { SqliteChangeStamp } from './sqlite-changes.ts';
import { sqliteFile } from './sqlite-file.ts';
import { BULK_CHECKPOINTS, type BulkCheckpoints, bulkWriteHolds } from './sqlite-checkpoints.ts';
import type { Database } from './types.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: DialectName;
  /** PostgreSQL: the schema everything lives in. */
  readonly schema: string | undefined;
  /**
   * A number that goes up whenever the database may have changed, or undefined while that cannot be
   * told (see SqliteChangeStamp and PostgresChangeStamp). Answers read from the database may be kept
   * while it stays the same.
   */
  changeStamp(): number | undefined;
  /**
   * PostgreSQL only: runs a `COPY (…) TO STDOUT (FORMAT binary)` statement, compiled with every value
   * as a literal, and returns the bytes it wrote, in the chunks they came in (see pg-copy.ts).
   */
  readonly copyOut?: (statement: CompiledQuery) => Promise<Buffer[]>;
  /**
   * Marks a long run of write transactions (a large import) until the answer is called. SQLite then
   * checkpoints its write-ahead log from a thread of its own, not in the writer's commits, and the
   * writer keeps more pages and its statement journals in memory (sqlite-checkpoints.ts). PostgreSQL:
   * nothing to do.
   */
  holdBulkWrites(): () => void;
  /** Answers when the database answers; used by /healthz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// Return 64-bit integers (sizes, counts) as strings: a JS number would lose precision past 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => value);

/** Prepared statements kept per connection; queries with lists of other lengths are other statements. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every statement anew on each call; preparing costs more than running most of our
 * queries. Reuse them (better-sqlite3 statements are reusable; the least recently used go first).
 */
function withStatementCache(connection: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => connection.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (statement) {
        cache.delete(sqlText); // re-inserted below: the Map's order is the recency order
      } else {
        statement = connection.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sqlText, statement);
      return statement;
    },
  };
}

/**
 * Kysely's SQLite driver, but every transaction takes the write lock when it begins (BEGIN IMMEDIATE).
 * A transaction begun plainly takes it at its first write, and if it has read before and finds the lock
 * held by another process (an `annostore worker` beside `annostore serve`, a CLI call) or by the
 * checkpoint thread's restart of the log, it fails at once with SQLITE_BUSY: SQLite cannot wait there
 * without risking a deadlock. Begun immediately, it waits (up to busy_timeout) instead. Within the
 * process nothing changes: its one connection runs one transaction at a time anyway. Where SQLite
 * answers busy at once all the same, what ran outside a transaction is tried again (sqlite-busy-retry.ts).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #inTransaction: () => boolean;
  #retrying: RetryingWhenBusy | undefined;

  constructor(config: SqliteDialectConfig, inTransaction: () => boolean) {
    super(config);
    this.#inTransaction = inTransaction;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.#retrying ??= new RetryingWhenBusy(connection, this.#inTransaction);
    return this.#retrying;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #inTransaction: () => boolean;

  /** `inTransaction`: whether the connection is inside a transaction (better-sqlite3 tells). */
  constructor(config: SqliteDialectConfig, inTransaction: () => boolean) {
    super(config);
    this.#config = config;
    this.#inTransaction = inTransaction;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#inTransaction);
  }
}

/** 64 MiB: eight times the log between two of the connection's own checkpoints (1,000 pages of 8 KiB). */
const LOG_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Kysely's log hook, told of each failed statement only. Kysely calls a log function for every
 * statement; the query events cost two awaits and are dropped at once.
 */
function failureLog(onQueryError: ((error: unknown) => void) | undefined): KyselyConfig['log'] {
  if (!onQueryError) return undefined;
  return (event: LogEvent) => {
    if (event.level === 'error') onQueryError(event.error);
  };
}

function openSqlite(dataDir: string, bulkCheckpoints = BULK_CHECKPOINTS, onQueryError?: (error: unknown) => void): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = sqliteFile(dataDir);
  const connection = new SQLite(file);
  // An image row carries its objects (a few kilobytes): 8 KiB pages hold two of them where 4 KiB pages
  // hold one, so a page of annotations reads half the pages. It applies to a new database only (set
  // before anything is written); an existing one keeps its page size until a VACUUM.
  connection.pragma('page_size = 8192');
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  // The log's file keeps the length it once reached: a large import grows it to hundreds of megabytes
  // (sqlite-checkpoints.ts). Past this, SQLite cuts it back when the log next starts anew.
  connection.pragma(`journal_size_limit = ${LOG_FILE_LIMIT_BYTES}`);
  connection.pragma('foreign_keys = ON');
  // A second process (an `annostore worker`, a CLI call) may hold the write lock for a moment.
  connection.pragma('busy_timeout = 5000');
  const changes = new SqliteChangeStamp(connection);
  const bulkWrites = bulkWriteHolds(connection, file, bulkCheckpoints);
  const kysely = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(connection) }, () => connection.inTransaction), log: failureLog(onQueryError) });
  return {
    kysely,
    dialect: 'sqlite',
    schema: undefined,
    changeStamp: () => changes.current(),
    holdBulkWrites: bulkWrites.hold,
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      // The threads first: the last connection to close copies what is left of the log and removes it.
      await bulkWrites.close();
      await kysely.destroy();
    },
  };
}

function openPostgres(url: string, schema: string | undefined, onQueryError?: (error: unknown) => void): Db {
  // Each connection sees only the configured schema, so tests and deployments can share a server.
  const connection = { connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) };
  const pool = new pg.Pool({ ...connection, max: 10 });
  const changes = new PostgresChangeStamp(connection);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: reportingStatements(pool, changes) }), log: failureLog(onQueryError) });
  return {
    kysely,
    dialect: 'postgres',
    schema: schema ?? 'public',
    changeStamp: () => changes.current(),
    holdBulkWrites: () => () => {},
    copyOut(statement) {
      if (statement.parameters.length > 0) return Promise.reject(new Error('a COPY statement takes no parameters'));
      return copyOut(pool, statement.sql);
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      await changes.close();
      await kysely.destroy();
    },
  };
}

export interface DbOptions {
  /** SQLite: how bulk writes checkpoint (tests use short steps). */
  bulkCheckpoints?: BulkCheckpoints;
  /** Told of every statement that fails (the metrics count them). */
  onQueryError?: (error: unknown) => void;
}

export async function createDb(config: Config, options: DbOptions = {}): Promise<Db> {
  if (!config.databaseUrl) return openSqlite(config.dataDir, options.bulkCheckpoints, options.onQueryError);
  if (config.databaseSchema) {
    // The schema must exist before any pooled connection sets its search_path to it.
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      await client.query(`create schema if not exists "${config.databaseSchema}"`);
    } finally {
      await client.end();
    }
  }
  return openPostgres(config.databaseUrl, config.databaseSchema, options.onQueryError);
}
