// Every database test runs on each dialect: SQLite in a fresh folder, PostgreSQL in a fresh schema.
// Without a reachable PostgreSQL the PostgreSQL runs are skipped with one line that says so.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';

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

export const postgresSkipReason = await probePostgres();
if (postgresSkipReason) console.log(`# ${postgresSkipReason}`);

export interface DialectCase {
  name: 'sqlite' | 'postgres';
  /** A skip reason for node:test, or false. */
  skip: string | false;
  /** A fresh, empty configuration: its own data folder and, on PostgreSQL, its own schema. */
  freshConfig(overrides?: Partial<Config>): Config;
  /** Removes what freshConfig made. */
  cleanup(config: Config): Promise<void>;
}

export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `annostore-${label}-`));
}

export const dialects: DialectCase[] = [
  {
    name: 'sqlite',
    skip: false,
    freshConfig: (overrides = {}) => loadConfig({}, { dataDir: tempDir('sqlite'), ...overrides }),
    async cleanup(config) {
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  },
  {
    name: 'postgres',
    skip: postgresSkipReason ?? false,
    freshConfig: (overrides = {}) =>
      loadConfig(
        {},
        {
          dataDir: tempDir('pg'),
          databaseUrl: TEST_DATABASE_URL,
          databaseSchema: `t_${process.pid}_${randomBytes(4).toString('hex')}`,
          ...overrides,
        },
      ),
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
