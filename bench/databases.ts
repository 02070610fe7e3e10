// Where a benchmark keeps its seeded database: a folder under .bench/ (SQLite) or a schema of its own
// (PostgreSQL), named after the seeding parameters so a re-run with the same ones reuses it.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../src/config.ts';
import { type Context, createContext } from '../src/context.ts';
import { BENCH_DIR, DEFAULT_DATABASE_URL } from './harness.ts';

export type DbChoice = 'sqlite' | 'postgres';

export interface BenchDatabase {
  readonly choice: DbChoice;
  /** DATA_DIR of the server (on PostgreSQL it holds only the blob folder). */
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly databaseSchema: string | undefined;
  readonly config: Config;
  /** Where it lives, for the report. */
  readonly where: string;
  /** Opens it (migrated), as the server would. */
  open(): Promise<Context>;
  /** Removes everything in it, so seeding starts from nothing. */
  reset(): Promise<void>;
}

export function parseDbChoice(raw: string | undefined): DbChoice {
  if (raw === undefined || raw === 'sqlite') return 'sqlite';
  if (raw === 'postgres') return 'postgres';
  throw new Error(`--db must be sqlite or postgres, got "${raw}"`);
}

/**
 * `key` names the seeded content, e.g. `annotations_i100000_o10_p12_v1`. With `storageUrl` the blobs
 * (and archives) live on S3 and DATA_DIR holds only the database file and temporary files.
 */
export function benchDatabase(choice: DbChoice, key: string, databaseUrl = DEFAULT_DATABASE_URL, storageUrl?: string): BenchDatabase {
  const dataDir = path.join(BENCH_DIR, `${key}-${choice}`);
  if (choice === 'sqlite') {
    const config = loadConfig({}, { dataDir, databaseUrl: undefined, databaseSchema: undefined, storageUrl });
    return {
      choice,
      dataDir,
      databaseUrl: undefined,
      databaseSchema: undefined,
      config,
      where: path.relative(process.cwd(), path.join(dataDir, 'annostore.sqlite')),
      open: () => createContext(config),
      async reset() {
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const schema = `bench_${key}`.toLowerCase().slice(0, 63);
  const config = loadConfig({}, { dataDir, databaseUrl, databaseSchema: schema, storageUrl });
  return {
    choice,
    dataDir,
    databaseUrl,
    databaseSchema: schema,
    config,
    where: `${databaseUrl} schema ${schema}`,
    open: () => createContext(config),
    async reset() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
