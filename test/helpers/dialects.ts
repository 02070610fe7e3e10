// Every database test runs on each dialect: SQLite in a fresh folder, PostgreSQL in a fresh schema.
// Without a reachable PostgreSQL the PostgreSQL runs are skipped with one line that says so.
//
// A fresh database starts migrated: running the migrations anew for every test took seconds a test on
// PostgreSQL. They run once per version of the migrations (see migrated-templates.ts), and each fresh
// database is a copy of that result; the migrations' own tests start from an empty one (emptyConfig).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';
import { copySqliteTemplate, makePostgresTemplate, makeSqliteTemplate, restorePostgresTemplate } from './migrated-templates.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function probePostgres(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return `PostgreSQL not reachable at ${TEST_DATABASE_URL} (${(error as Error).message}): PostgreSQL runs skipped`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `TEST_DIALECTS=sqlite` (a comma-separated list) runs the database tests on those dialects only; CI's
 * second Node line uses it, as the PostgreSQL driver is the same JavaScript on every line while
 * better-sqlite3 is built for each.
 */
const chosenDialects = process.env.TEST_DIALECTS?.split(',').map((name) => name.trim());
const notChosen = (name: string): string | null =>
  chosenDialects && !chosenDialects.includes(name) ? `${name} runs skipped: TEST_DIALECTS=${process.env.TEST_DIALECTS}` : null;

export const postgresSkipReason = notChosen('postgres') ?? (await probePostgres());
if (postgresSkipReason) console.log(`# ${postgresSkipReason}`);
const sqliteSkipReason = notChosen('sqlite');

export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `annostore-${label}-`));
}

const sqliteTemplate = sqliteSkipReason ? null : await makeSqliteTemplate(tempDir);
const postgresTemplate = postgresSkipReason ? null : await makePostgresTemplate(TEST_DATABASE_URL, tempDir);
const newSchemaName = () => `t_${process.pid}_${randomBytes(4).toString('hex')}`;

export interface DialectCase {
  name: 'sqlite' | 'postgres';
  /** A skip reason for node:test, or false. */
  skip: string | false;
  /**
   * A fresh configuration: its own data folder and, on PostgreSQL, its own schema, holding a database
   * with every migration applied and nothing else (as the first start leaves it).
   */
  freshConfig(overrides?: Partial<Config>): Config;
  /** A fresh configuration whose database is empty, no migration applied (for the migrations' tests). */
  emptyConfig(overrides?: Partial<Config>): Config;
  /** Removes what freshConfig or emptyConfig made. */
  cleanup(config: Config): Promise<void>;
}

export const dialects: DialectCase[] = [
  {
    name: 'sqlite',
    skip: sqliteSkipReason ?? false,
    freshConfig(overrides = {}) {
      const dataDir = tempDir('sqlite');
      if (sqliteTemplate) copySqliteTemplate(sqliteTemplate, dataDir);
      return loadConfig({}, { dataDir, ...overrides });
    },
    emptyConfig: (overrides = {}) => loadConfig({}, { dataDir: tempDir('sqlite'), ...overrides }),
    async cleanup(config) {
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  },
  {
    name: 'postgres',
    skip: postgresSkipReason ?? false,
    freshConfig(overrides = {}) {
      const databaseSchema = newSchemaName();
      if (postgresTemplate) restorePostgresTemplate(postgresTemplate, TEST_DATABASE_URL, databaseSchema);
      return loadConfig({}, { dataDir: tempDir('pg'), databaseUrl: TEST_DATABASE_URL, databaseSchema, ...overrides });
    },
    emptyConfig: (overrides = {}) =>
      loadConfig({}, { dataDir: tempDir('pg'), databaseUrl: TEST_DATABASE_URL, databaseSchema: newSchemaName(), ...overrides }),
    async cleanup(config) {
      fs.rmSync(config.dataDir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${config.databaseSchema}" cascade`);
      } finally {
        await client.end();
      }
    },
  },
];
