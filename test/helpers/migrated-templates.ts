// Migrated databases to copy. The migrations run once for each version of their code, and each test's
// fresh database is a copy of what they made: a file copy on SQLite; on PostgreSQL the migrated
// schema's pg_dump, replayed by psql into the test's own schema (seconds faster than migrating it).
// The copies are kept in the system's temporary folder under a digest of the code the migrations run,
// so a changed migration makes new ones on its next run.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { sqliteFile } from '../../src/db/sqlite-file.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const FOLDER = path.join(os.tmpdir(), 'annostore-migrated-templates');

/** A digest of what the migrations run: every file of src/db, and the files its migrations import from elsewhere. */
function migrationsDigest(): string {
  const dbFolder = path.join(SRC, 'db');
  const files = new Set<string>();
  for (const name of fs.readdirSync(dbFolder, { recursive: true, encoding: 'utf8' })) files.add(path.join(dbFolder, name));
  const migrations = path.join(dbFolder, 'migrations');
  for (const name of fs.readdirSync(migrations)) {
    const text = fs.readFileSync(path.join(migrations, name), 'utf8');
    for (const [, target] of text.matchAll(/from '(\.\.\/\.\.\/[^']+)'/g)) files.add(path.resolve(migrations, target!));
  }
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    if (!fs.statSync(file).isFile()) continue;
    hash.update(path.relative(SRC, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

const digest = migrationsDigest();

/** Writes `file` through a temporary name, so a process beside this one never reads half of it. */
function writeAtomically(file: string, write: (temporary: string) => void): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    write(temporary);
    fs.renameSync(temporary, file);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/** The migrated SQLite database file to copy (made here on first use). */
export async function makeSqliteTemplate(tempDir: (label: string) => string): Promise<string> {
  const file = path.join(FOLDER, `sqlite-${digest}.sqlite`);
  if (fs.existsSync(file)) return file;
  const dir = tempDir('sqlite-template');
  try {
    const db = await createDb(loadConfig({}, { dataDir: dir }));
    try {
      await migrateToLatest(db);
    } finally {
      // The last connection to close copies the log into the database file and removes the log.
      await db.close();
    }
    if (fs.existsSync(`${sqliteFile(dir)}-wal`)) throw new Error('the migrated SQLite database kept its log after closing');
    writeAtomically(file, (temporary) => fs.copyFileSync(sqliteFile(dir), temporary));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return file;
}

/** Gives `dataDir` (a new, empty folder) its copy of the migrated database. */
export function copySqliteTemplate(template: string, dataDir: string): void {
  fs.copyFileSync(template, sqliteFile(dataDir));
}

export interface PostgresTemplate {
  /** pg_dump's script of the migrated schema, `schemaName` standing for the schema everywhere. */
  script: string;
  schemaName: string;
}

const works = (command: string): boolean => {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/**
 * The script that makes a migrated schema (made here on first use), or null without psql and pg_dump
 * of the server's version: each fresh schema is then migrated by the app as it starts.
 */
export async function makePostgresTemplate(url: string, tempDir: (label: string) => string): Promise<PostgresTemplate | null> {
  if (!works('psql') || !works('pg_dump')) return null;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>("select current_setting('server_version_num') as version");
    const schemaName = `annostore_template_${digest}`;
    const file = path.join(FOLDER, `postgres-${rows[0]!.version}-${digest}.sql`);
    if (fs.existsSync(file)) return { script: fs.readFileSync(file, 'utf8'), schemaName };
    const schema = `t_${process.pid}_template`;
    const dir = tempDir('pg-template');
    try {
      const db = await createDb(loadConfig({}, { dataDir: dir, databaseUrl: url, databaseSchema: schema }));
      try {
        await migrateToLatest(db);
      } finally {
        await db.close();
      }
      const dump = execFileSync('pg_dump', ['--schema', schema, '--no-owner', '--no-privileges', '--inserts', '--dbname', url], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      // pg_dump's \restrict lines are psql commands that a script run on its own does not need.
      const script = dump.replace(/^\\(un)?restrict .*$/gm, '').replace(new RegExp(`\\b${schema}\\b`, 'g'), schemaName);
      writeAtomically(file, (temporary) => fs.writeFileSync(temporary, script));
      return { script, schemaName };
    } catch (error) {
      console.log(`# no migrated PostgreSQL schema to copy (${(error as Error).message.split('\n')[0]}): each test's schema is migrated`);
      return null;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await client.query(`drop schema if exists "${schema}" cascade`);
    }
  } finally {
    await client.end();
  }
}

/** Makes `schema` a copy of the migrated one, before the test connects to it. */
export function restorePostgresTemplate(template: PostgresTemplate, url: string, schema: string): void {
  execFileSync('psql', ['--no-psqlrc', '--quiet', '--set', 'ON_ERROR_STOP=1', '--single-transaction', '--dbname', url], {
    input: template.script.replaceAll(template.schemaName, schema),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
}
