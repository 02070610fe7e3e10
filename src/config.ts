// The one place that reads the environment: everything else receives a frozen Config.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_KEY_RULE, isUsableApiKey } from './api-key-format.ts';

export interface Limits {
  /** Largest JSON body accepted by any route, in bytes. */
  readonly jsonBodyBytes: number;
  /** Largest annotation sent to PUT or PATCH /v2/images/:id/annotation (up to 10,000 objects). */
  readonly annotationBodyBytes: number;
  /** Longest title, name or description accepted. */
  readonly titleLength: number;
  readonly descriptionLength: number;
  /** Page size bounds of the paged list routes. */
  readonly perPageMax: number;
  /** Files in one POST /tasks/import/files request. */
  readonly uploadFilesPerRequest: number;
  /** Largest single uploaded file, in bytes. */
  readonly uploadFileBytes: number;
  /** Largest image accepted, in pixels (decompression bombs stop here). */
  readonly imagePixels: number;
  /** Hashes in one POST /tasks/import/check-images call. */
  readonly checkHashes: number;
  /** Largest POST /tasks/import body (it lists every file of the import), in bytes. */
  readonly importBodyBytes: number;
  /** Files listed in one import. */
  readonly importFiles: number;
  /** How long an uploaded file waits for an import before it is removed, in milliseconds. */
  readonly stagedFileTtlMs: number;
}

export interface DeprecationPolicy {
  /** When v1 was deprecated (RFC 9745 `Deprecation` header). */
  readonly deprecatedAt: Date;
  /** When v1 goes away (RFC 8594 `Sunset` header); never before deprecatedAt. */
  readonly sunsetAt: Date;
  readonly successorUrl: string;
  readonly docsUrl: string;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** `postgres://…` selects PostgreSQL; undefined means SQLite inside dataDir. */
  readonly databaseUrl: string | undefined;
  /** PostgreSQL schema to use instead of `public` (tests give every run its own). */
  readonly databaseSchema: string | undefined;
  /** `s3://bucket?endpoint=…` selects S3; undefined means the local blob folder inside dataDir. */
  readonly storageUrl: string | undefined;
  /** Key to register for user admin of team default at start. */
  readonly bootstrapApiKey: string | undefined;
  readonly logLevel: string;
  /**
   * While a large import is received or runs: how far (in percent) V8's heap may grow past what its
   * last full collection kept before it collects again; 0 leaves V8's own factor (up to 300%) always.
   * See src/heap-growth.ts.
   */
  readonly heapGrowthPercent: number;
  /** How long a browser session (POST /v2/session) lasts after sign-in (SESSION_TTL_HOURS, 168 by default). */
  readonly sessionTtlMs: number;
  /**
   * The server is behind a proxy that sets X-Forwarded-Proto and X-Forwarded-For (TRUST_PROXY=true):
   * a request it forwarded over HTTPS gets a Secure session cookie.
   */
  readonly trustProxy: boolean;
  /** The web interface's sources (web/), bundled by esbuild on first request. */
  readonly webDir: string;
  readonly deprecation: DeprecationPolicy;
  readonly limits: Limits;
  readonly tasks: TaskSettings;
}

export interface TaskSettings {
  /** How long a worker's claim on a task lasts without a heartbeat; a dead worker's task waits this long. */
  readonly leaseMs: number;
  /** How often an idle worker looks for work. */
  readonly pollMs: number;
  /** Images an import commits per transaction: larger is faster, smaller stops and resumes sooner. */
  readonly importBatchSize: number;
  /** Threads that read and check annotation files beside the task's thread; 0 keeps them on it. */
  readonly importThreads: number;
  /** The fewest annotated images an import needs before it uses those threads (starting them costs). */
  readonly importThreadMinImages: number;
  /** How long a finished export's archive is kept (EXPORT_RETENTION_DAYS); then it is removed. */
  readonly exportRetentionMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be 0-65535, got "${raw}"`);
  return port;
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

function parseFlag(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false`);
}

function parseMs(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 10) throw new ConfigError(`${name} must be a whole number of milliseconds (at least 10)`);
  return ms;
}

function parseCount(name: string, raw: string | undefined, fallback: number, max: number, min = 1): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

function parseDate(name: string, raw: string | undefined, fallback: string): Date {
  const value = new Date(raw ?? fallback);
  if (Number.isNaN(value.getTime())) throw new ConfigError(`${name} is not a date: "${raw}"`);
  return value;
}

function parseDatabaseUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new ConfigError('DATABASE_URL must be a postgres:// URL');
  return raw;
}

function parseStorageUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!raw.startsWith('s3://')) throw new ConfigError('STORAGE_URL must be an s3://bucket?endpoint=… URL');
  return raw;
}

function parseSchemaName(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new ConfigError('DATABASE_SCHEMA must be a plain lower-case identifier');
  return raw;
}

function parseApiKey(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  // Registered, such a key would answer 401 to every request: better no start than a key that never works.
  if (!isUsableApiKey(raw)) throw new ConfigError(`ANNOSTORE_API_KEY must be ${API_KEY_RULE}; the one set (${raw.length} characters) could never be used`);
  return raw;
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const deprecatedAt = parseDate('V1_DEPRECATED_AT', env.V1_DEPRECATED_AT, '2026-01-01T00:00:00Z');
  const sunsetAt = parseDate('V1_SUNSET_AT', env.V1_SUNSET_AT, '2027-12-31T00:00:00Z');
  if (sunsetAt < deprecatedAt) throw new ConfigError('V1_SUNSET_AT must not be before V1_DEPRECATED_AT');
  const config: Config = {
    host: env.HOST || '127.0.0.1',
    port: parsePort(env.PORT),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: parseDatabaseUrl(env.DATABASE_URL),
    databaseSchema: parseSchemaName(env.DATABASE_SCHEMA),
    storageUrl: parseStorageUrl(env.STORAGE_URL),
    bootstrapApiKey: parseApiKey(env.ANNOSTORE_API_KEY),
    logLevel: env.LOG_LEVEL || 'info',
    heapGrowthPercent: parseCount('HEAP_GROWTH_PERCENT', env.HEAP_GROWTH_PERCENT, 20, 1000, 0),
    sessionTtlMs: parseCount('SESSION_TTL_HOURS', env.SESSION_TTL_HOURS, 168, 24 * 366) * HOUR_MS,
    trustProxy: parseFlag('TRUST_PROXY', env.TRUST_PROXY),
    // The command (bin/annostore.js) names the checkout it runs from; the sources run by tsx find it beside them.
    webDir: path.resolve(env.ANNOSTORE_ROOT || path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'web'),
    deprecation: {
      deprecatedAt,
      sunsetAt,
      successorUrl: env.V1_SUCCESSOR_URL || '/v2',
      docsUrl: env.V1_DOCS_URL || '/docs',
    },
    limits: {
      jsonBodyBytes: 1024 * 1024,
      annotationBodyBytes: 16 * 1024 * 1024,
      titleLength: 255,
      descriptionLength: 10_000,
      perPageMax: 1000,
      uploadFilesPerRequest: 100,
      uploadFileBytes: Number(env.UPLOAD_FILE_BYTES) || 1024 * 1024 * 1024,
      imagePixels: 100_000_000,
      checkHashes: 10_000,
      importBodyBytes: 256 * 1024 * 1024,
      importFiles: 2_000_000,
      stagedFileTtlMs: 24 * 60 * 60 * 1000,
    },
    tasks: {
      leaseMs: parseMs('TASK_LEASE_MS', env.TASK_LEASE_MS, 30_000),
      pollMs: parseMs('TASK_POLL_MS', env.TASK_POLL_MS, 500),
      importBatchSize: parseCount('IMPORT_BATCH_SIZE', env.IMPORT_BATCH_SIZE, 500, 5000),
      // One core stays with the task's own thread (and the API beside it).
      importThreads: parseCount('IMPORT_THREADS', env.IMPORT_THREADS, Math.min(4, os.availableParallelism() - 1), 16, 0),
      importThreadMinImages: parseCount('IMPORT_THREAD_MIN_IMAGES', env.IMPORT_THREAD_MIN_IMAGES, 1000, 100_000_000, 0),
      exportRetentionMs: parseCount('EXPORT_RETENTION_DAYS', env.EXPORT_RETENTION_DAYS, 7, 3650) * DAY_MS,
    },
    ...overrides,
  };
  return Object.freeze(config);
}

/** Defaults of the client commands (`annostore import`): the server to talk to and the key to send. */
export interface ClientSettings {
  readonly url: string | undefined;
  readonly key: string | undefined;
}

export function loadClientSettings(env: Env = process.env): ClientSettings {
  return Object.freeze({ url: env.ANNOSTORE_URL || undefined, key: env.ANNOSTORE_API_KEY || undefined });
}
