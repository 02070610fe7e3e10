// Runs the migrations in src/db/migrations in order. The list is static so it works without a
// file-system scan (and inside a bundled build).
import { type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator, type TableMetadata, sql } from 'kysely';
import type { Db } from './create-db.ts';
import * as initial from './migrations/0001_initial.ts';
import * as importItems from './migrations/0002_import_items.ts';
import * as taskInputs from './migrations/0003_task_inputs.ts';
import * as coveringHashIndexes from './migrations/0004_covering_hash_indexes.ts';
import * as objectsLz4 from './migrations/0005_objects_lz4.ts';
import * as changeNotifications from './migrations/0006_change_notifications.ts';
import * as importPlans from './migrations/0007_import_plans.ts';
import * as keyScopesIdempotency from './migrations/0008_key_scopes_idempotency.ts';
import * as catalogDetails from './migrations/0009_catalog_details.ts';
import * as objectIds from './migrations/0010_object_ids.ts';
import * as imageListIndexes from './migrations/0011_image_list_indexes.ts';
import * as thumbnails from './migrations/0012_thumbnails.ts';
import * as sessions from './migrations/0013_sessions.ts';
import * as webhooks from './migrations/0014_webhooks.ts';
import * as audit from './migrations/0015_audit.ts';
import * as rateLimits from './migrations/0016_rate_limits.ts';
import * as objectTagValues from './migrations/0017_object_tag_values.ts';
import * as tagValues from './migrations/0018_tag_values.ts';
import * as nameSearch from './migrations/0019_name_search.ts';
import * as perceptualHashes from './migrations/0020_perceptual_hashes.ts';
import * as imageIdBlocks from './migrations/0022_image_id_blocks.ts';
import * as taskProjects from './migrations/0024_task_projects.ts';
import * as versions from './migrations/0025_versions.ts';
import * as imageClassSummary from './migrations/0026_image_class_summary.ts';
import * as embeddings from './migrations/0027_embeddings.ts';
import * as predictions from './migrations/0028_predictions.ts';
import * as accounts from './migrations/0029_accounts.ts';
import * as annotationRevisions from './migrations/0031_annotation_revisions.ts';
import * as userIdentities from './migrations/0032_user_identities.ts';
import * as projectMembers from './migrations/0033_project_members.ts';
import * as jobs from './migrations/0034_jobs.ts';
import * as annotationHashes from './migrations/0036_annotation_hashes.ts';
import * as statsTotals from './migrations/0037_stats_totals.ts';
import * as predictionAgreement from './migrations/0038_prediction_agreement.ts';
import * as jobQuality from './migrations/0039_job_quality.ts';
import * as versionImagesCascade from './migrations/0040_version_images_cascade.ts';
import * as stripedTotals from './migrations/0041_striped_totals.ts';
import * as imageOrderCovering from './migrations/0042_image_order_covering.ts';
import * as managersOnlyDatasets from './migrations/0043_managers_only_datasets.ts';
import * as deferredTotals from './migrations/0044_deferred_totals.ts';

const migrations = {
  '0001_initial': initial,
  '0002_import_items': importItems,
  '0003_task_inputs': taskInputs,
  '0004_covering_hash_indexes': coveringHashIndexes,
  '0005_objects_lz4': objectsLz4,
  '0006_change_notifications': changeNotifications,
  '0007_import_plans': importPlans,
  '0008_key_scopes_idempotency': keyScopesIdempotency,
  '0009_catalog_details': catalogDetails,
  '0010_object_ids': objectIds,
  '0011_image_list_indexes': imageListIndexes,
  '0012_thumbnails': thumbnails,
  '0013_sessions': sessions,
  '0014_webhooks': webhooks,
  '0015_audit': audit,
  '0016_rate_limits': rateLimits,
  '0017_object_tag_values': objectTagValues,
  '0018_tag_values': tagValues,
  '0019_name_search': nameSearch,
  '0020_perceptual_hashes': perceptualHashes,
  '0022_image_id_blocks': imageIdBlocks,
  '0024_task_projects': taskProjects,
  '0025_versions': versions,
  '0026_image_class_summary': imageClassSummary,
  '0027_embeddings': embeddings,
  '0028_predictions': predictions,
  '0029_accounts': accounts,
  '0031_annotation_revisions': annotationRevisions,
  '0032_user_identities': userIdentities,
  '0033_project_members': projectMembers,
  '0034_jobs': jobs,
  '0036_annotation_hashes': annotationHashes,
  '0037_stats_totals': statsTotals,
  '0038_prediction_agreement': predictionAgreement,
  '0039_job_quality': jobQuality,
  '0040_version_images_cascade': versionImagesCascade,
  '0041_striped_totals': stripedTotals,
  '0042_image_order_covering': imageOrderCovering,
  '0043_managers_only_datasets': managersOnlyDatasets,
  '0044_deferred_totals': deferredTotals,
} satisfies Record<string, Migration>;

export type MigrationName = keyof typeof migrations;
/** Every migration, in the order they apply. */
export const MIGRATION_NAMES = Object.keys(migrations) as MigrationName[];

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * On PostgreSQL, the migrator's look for its own tables reads this schema alone. Kysely's introspector
 * reads every table of every schema of the database, and fails ("schema … does not exist") when
 * another user of the same database drops a schema meanwhile.
 */
function ownSchemaIntrospector(kysely: Kysely<unknown>, schema: string | undefined): DatabaseIntrospector {
  const name = schema === undefined ? sql<string>`current_schema()` : sql<string>`${schema}`;
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; schema: string }>`
      select table_name as name, table_schema as schema from information_schema.tables where table_schema = ${name}`.execute(kysely);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: false, columns: [] }));
  };
  return {
    getSchemas: async () => (await sql<{ name: string }>`select nspname as name from pg_namespace where nspname = ${name}`.execute(kysely)).rows,
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
}

/** The database as the migrator sees it: on PostgreSQL, with the introspector of its own schema. */
function migratorDb(db: Db): Kysely<unknown> {
  if (db.dialect !== 'postgres') return db.kysely as Kysely<unknown>;
  const kysely = db.kysely as Kysely<unknown>;
  const introspection = ownSchemaIntrospector(kysely, db.schema);
  return new Proxy(kysely, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      // Kysely's methods read private fields: they must run on the instance itself, not the proxy.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function migratorOf(db: Db): Migrator {
  // Name the schema: the migrator's table check would otherwise see another schema's tables.
  return new Migrator({ db: migratorDb(db), provider, ...(db.schema ? { migrationTableSchema: db.schema } : {}) });
}

function applied({ error, results }: MigrationResultSet): string[] {
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies every migration not applied yet; answers their names. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  return applied(await migratorOf(db).migrateToLatest());
}

/** Migrates up or down until `name` is the last applied (a migration's test starts before it). */
export async function migrateTo(db: Db, name: keyof typeof migrations): Promise<string[]> {
  return applied(await migratorOf(db).migrateTo(name));
}
