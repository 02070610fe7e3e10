// Runs the migrations in src/db/migrations in order. The list is static so it works without a
// file-system scan (and inside a bundled build).
import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Db } from './create-db.ts';
import * as initial from './migrations/0001_initial.ts';
import * as importItems from './migrations/0002_import_items.ts';
import * as taskInputs from './migrations/0003_task_inputs.ts';
import * as coveringHashIndexes from './migrations/0004_covering_hash_indexes.ts';
import * as objectsLz4 from './migrations/0005_objects_lz4.ts';
import * as changeNotifications from './migrations/0006_change_notifications.ts';

const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_import_items': importItems,
  '0003_task_inputs': taskInputs,
  '0004_covering_hash_indexes': coveringHashIndexes,
  '0005_objects_lz4': objectsLz4,
  '0006_change_notifications': changeNotifications,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Db): Promise<string[]> {
  // Name the schema: the migrator's table check would otherwise see another schema's tables.
  const migrator = new Migrator({ db: db.kysely, provider, ...(db.schema ? { migrationTableSchema: db.schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
