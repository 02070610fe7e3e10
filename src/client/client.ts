// A typed client of the v1 API (and of /v2/exports): one method per endpoint, types from the schemas
// the server validates with, the contract's error body as ApiError, and bounded retries for failures
// that may pass.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Static } from 'typebox';
import type { Success } from '../http/schemas/common.ts';
import type {
  AnnotationsQuery,
  AttachTagBody,
  CatalogueQuery,
  CreatedId,
  DatasetsQuery,
  DetachTagsBody,
  ImageQuery,
  LocalImportBody,
  ProjectTagBody,
  ProjectsQuery,
  StopAnswer,
  TaskId,
  TasksQuery,
  UploadMetadata,
  UploadResult,
  importBody,
} from '../http/schemas/requests.ts';
import type { AnnotationRecord, Architecture, Dataset, ImageTag, Model, Project, ProjectTag, Task } from '../http/schemas/resources.ts';
import type { TagScope } from '../http/schemas/common.ts';
import type { ExportAnswer, ExportBody } from '../http/schemas/exports.ts';
import { ApiError, ConnectionError, apiErrorOf, connectionReason } from './errors.ts';
import { V2Client } from './v2.ts';
import type { Exchange, Exchanger, Query, RequestOptions } from './exchange.ts';
import { type Part, fetchBody, multipartBody } from './multipart.ts';
import { type Answer, sendPieces } from './send-pieces.ts';
import { UPLOAD_BYTES_POLICY, policyBurstOf } from './rate-limit-policy.ts';
import { DEFAULT_RETRY, type RetryPolicy, backoffMs, isRetryableStatus, planAfterRateLimit, retryAfterOf } from './retry.ts';

export type ProjectT = Static<typeof Project>;
export type DatasetT = Static<typeof Dataset>;
export type AnnotationRecordT = Static<typeof AnnotationRecord>;
export type ModelT = Static<typeof Model>;
export type ArchitectureT = Static<typeof Architecture>;
export type ProjectTagT = Static<typeof ProjectTag>;
export type ImageTagT = Static<typeof ImageTag>;
export type TaskT = Static<typeof Task>;
export type TaskStatus = TaskT['status'];
export type ExportBodyT = Static<typeof ExportBody>;
export type ExportAnswerT = Static<typeof ExportAnswer>;
export type TagScopeT = Static<typeof TagScope>;
export type ImageRef = Static<typeof ImageQuery>;
export type ImportBody = Static<ReturnType<typeof importBody>>;
export type ImportFileRef = ImportBody['files'][number];
export type OnConflictT = NonNullable<ImportBody['onConflict']>;
/** The `onConflict` values, for command-line checks (the schema module loads the server's services). */
export const ON_CONFLICT_MODES = ['ignore', 'replace', 'rename'] as const;
// Both ways assignable: the list is exactly the schema's enum.
type SameModes<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameModes: SameModes<(typeof ON_CONFLICT_MODES)[number], OnConflictT> = true;
void sameModes;
export type LocalImportBodyT = Static<typeof LocalImportBody>;
export type UploadMetadataT = Static<typeof UploadMetadata>;
export type UploadResultT = Static<typeof UploadResult>;
type SuccessT = Static<typeof Success>;

/** One file of POST /tasks/import/files: its metadata and, unless the server knows its hash, its content. */
export interface UploadFile {
  metadata: UploadMetadataT;
  /** The bytes, or a Blob (`fs.openAsBlob(path)` streams from disk when the request is sent). */
  content?: Uint8Array | Blob;
  filename?: string;
}

export interface RetryNotice {
  request: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface ClientOptions {
  /** Base URL of the server, without `/v1`. */
  url: string;
  key: string;
  /** Retries after the first attempt (default 5), or a whole policy. */
  retries?: number | RetryPolicy;
  fetch?: typeof fetch;
  /** A request that has not answered by then counts as a connection failure (default 5 minutes). */
  timeoutMs?: number;
  onRetry?: (notice: RetryNotice) => void;
}

const TERMINAL: ReadonlySet<string> = new Set(['finished', 'error', 'stopped']);
export const isTerminal = (status: string): boolean => TERMINAL.has(status);

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, String(v));
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function refused(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type { Exchange, Query, RequestOptions } from './exchange.ts';

export class AnnostoreClient implements Exchanger {
  readonly baseUrl: string;
  private readonly key: string;
  private readonly policy: RetryPolicy;
  /** A fetch the caller gave, used for every request; else fetch, and node:http for uploads. */
  private readonly givenFetch: typeof fetch | undefined;
  private readonly timeoutMs: number;
  private readonly onRetry: ((notice: RetryNotice) => void) | undefined;
  private uploadBurst: number | undefined;

  /** API v2, resource by resource. */
  readonly v2: V2Client = new V2Client(this);

  constructor(options: ClientOptions) {
    this.baseUrl = options.url.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.key = options.key;
    this.policy = typeof options.retries === 'number' ? { ...DEFAULT_RETRY, retries: options.retries } : (options.retries ?? DEFAULT_RETRY);
    this.givenFetch = options.fetch;
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.onRetry = options.onRetry;
  }

  /**
   * The request body bytes the server lets this key send at once (its RateLimit-Policy), as last
   * announced; undefined until an answer has said so, or when uploads are not limited.
   */
  get uploadBurstBytes(): number | undefined {
    return this.uploadBurst;
  }

  // Projects and datasets

  listProjects(query: Static<typeof ProjectsQuery> = {}): Promise<ProjectT[]> {
    return this.request('GET', '/projects', { query });
  }

  deleteProject(projectId: number): Promise<SuccessT> {
    return this.request('DELETE', `/projects/${projectId}`);
  }

  listDatasets(query: Static<typeof DatasetsQuery> = {}): Promise<DatasetT[]> {
    return this.request('GET', '/datasets', { query });
  }

  deleteDataset(datasetId: number): Promise<SuccessT> {
    return this.request('DELETE', `/datasets/${datasetId}`);
  }

  // Annotations, models, architectures

  listAnnotations(query: Static<typeof AnnotationsQuery>): Promise<AnnotationRecordT[]> {
    return this.request('GET', '/annotations', { query });
  }

  /** Every annotation record of the project, page after page. */
  async *allAnnotations(query: Omit<Static<typeof AnnotationsQuery>, 'page'>): AsyncGenerator<AnnotationRecordT> {
    const perPage = query.perPage ?? 1000;
    for (let page = 1; ; page += 1) {
      const records = await this.listAnnotations({ ...query, page, perPage });
      yield* records;
      if (records.length < perPage) return;
    }
  }

  listModels(query: Static<typeof CatalogueQuery> = {}): Promise<ModelT[]> {
    return this.request('GET', '/models', { query });
  }

  listArchitectures(query: Static<typeof CatalogueQuery> = {}): Promise<ArchitectureT[]> {
    return this.request('GET', '/architectures', { query });
  }

  // Project tags

  listProjectTags(projectId: number, type: TagScopeT): Promise<ProjectTagT[]> {
    return this.request('GET', `/projects/${projectId}/tags`, { query: { type } });
  }

  createProjectTag(projectId: number, body: Static<typeof ProjectTagBody>): Promise<Static<typeof CreatedId>> {
    return this.request('POST', `/projects/${projectId}/tags`, { json: body, idempotent: false });
  }

  updateProjectTag(projectId: number, id: number, body: Static<typeof ProjectTagBody>): Promise<SuccessT> {
    return this.request('PUT', `/projects/${projectId}/tags/${id}`, { json: body });
  }

  deleteProjectTag(projectId: number, id: number, type: TagScopeT): Promise<SuccessT> {
    return this.request('DELETE', `/projects/${projectId}/tags/${id}`, { query: { type } });
  }

  // Image tags and description; `image` is `{imageId}` or `{imageTitle, datasetId}`

  listImageTags(image: ImageRef): Promise<ImageTagT[]> {
    return this.request('GET', '/images/tags', { query: image });
  }

  attachImageTag(image: ImageRef, body: Static<typeof AttachTagBody>): Promise<SuccessT> {
    return this.request('POST', '/images/tags', { query: image, json: body });
  }

  detachImageTags(image: ImageRef, body: Static<typeof DetachTagsBody>): Promise<SuccessT> {
    return this.request('DELETE', '/images/tags', { query: image, json: body });
  }

  setImageDescription(image: ImageRef, value: string): Promise<SuccessT> {
    return this.request('PUT', '/images/description', { query: image, json: { value } });
  }

  // Tasks

  listTasks(query: Static<typeof TasksQuery> = {}): Promise<TaskT[]> {
    return this.request('GET', '/tasks', { query });
  }

  async getTask(id: number): Promise<TaskT> {
    const [task] = await this.listTasks({ id });
    if (!task) throw new ApiError('NOT_FOUND', `task ${id} not found`, 404, { message: `task ${id} not found` }, `GET /tasks?id=${id}`);
    return task;
  }

  stopTask(id: number): Promise<Static<typeof StopAnswer>> {
    return this.request('POST', `/tasks/${id}/stop`);
  }

  /**
   * Polls the task until it is finished, failed or stopped; `onUpdate` sees every state read. The
   * first polls come soon (`firstIntervalMs`) and the pause doubles up to `intervalMs`, so a short
   * task is seen finished at once and a long one is not asked about more often than before.
   */
  async waitForTask<T extends { status: string } = TaskT>(
    id: number,
    options: {
      intervalMs?: number;
      firstIntervalMs?: number;
      onUpdate?: (task: T) => void;
      signal?: AbortSignal;
      /** How the task is read (v1's GET /v1/tasks?id= unless told; `client.v2.tasks.get` for v2's view). */
      read?: (id: number) => Promise<T>;
    } = {},
  ): Promise<T> {
    const interval = options.intervalMs ?? 500;
    let pause = Math.min(options.firstIntervalMs ?? interval, interval);
    const read = options.read ?? ((taskId: number) => this.getTask(taskId) as unknown as Promise<T>);
    for (;;) {
      const task = await read(id);
      options.onUpdate?.(task);
      if (isTerminal(task.status)) return task;
      options.signal?.throwIfAborted();
      await sleep(pause);
      // A quarter longer each time: a task that ends within a second is seen at most about a quarter
      // of its time late (doubling could add as much as it had taken), and a long one is polled at
      // `interval` soon enough.
      pause = Math.min(pause * 1.25, interval);
    }
  }

  // Import

  /** The hashes of the list that the server does not store yet (at most 10,000 a call). */
  checkImages(hashes: readonly string[]): Promise<string[]> {
    return this.request('POST', '/tasks/import/check-images', { json: hashes });
  }

  /** Uploads at most 100 files; answers one result per file, in order. */
  uploadFiles(files: readonly UploadFile[]): Promise<UploadResultT[]> {
    const parts: Part[] = [];
    files.forEach((file, i) => {
      parts.push({ name: `f${i}`, value: JSON.stringify(file.metadata) });
      if (file.content) parts.push({ name: `f${i}-file`, filename: file.filename ?? file.metadata.id.split('/').pop()!, content: file.content });
    });
    // Uploading a file twice stores it once, so the request may be repeated.
    return this.request('POST', '/tasks/import/files', { multipart: multipartBody(parts) });
  }

  startImport(body: ImportBody): Promise<Static<typeof TaskId>> {
    return this.request('POST', '/tasks/import', { json: body, idempotent: false });
  }

  startLocalImport(body: LocalImportBodyT): Promise<Static<typeof TaskId>> {
    return this.request('POST', '/tasks/import/local', { json: body, idempotent: false });
  }

  // Exports (v2)

  /** Starts an export task; follow it with waitForTask(answer.task.id). */
  startExport(body: ExportBodyT): Promise<ExportAnswerT> {
    return this.request('POST', '/exports', { json: body, idempotent: false, version: 'v2' });
  }

  getExport(id: number): Promise<ExportAnswerT> {
    return this.request('GET', `/exports/${id}`, { version: 'v2' });
  }

  /** Removes the export's archive and its task (a running export is stopped first). */
  async deleteExport(id: number): Promise<void> {
    await this.request('DELETE', `/exports/${id}`, { version: 'v2' });
  }

  /**
   * Downloads a finished export's archive to `file`. The bytes go to `<file>.part`; a connection lost
   * midway is taken up again from the bytes already there (a Range request, with If-Range, so a
   * changed archive starts over), and the file gets its name only when it is whole.
   */
  async downloadExport(id: number, file: string, options: { onProgress?: (bytes: number, total: number) => void } = {}): Promise<{ size: number }> {
    const url = `${this.baseUrl}/v2/exports/${id}/archive`;
    const label = `GET /v2/exports/${id}/archive`;
    const part = `${file}.part`;
    await fsp.rm(part, { force: true });
    let etag: string | undefined;
    let total = -1;
    let waitedOut = 0;
    for (let attempt = 0; ; attempt += 1) {
      const have = etag ? (await fsp.stat(part)).size : 0;
      if (total >= 0 && have === total) break;
      const headers: Record<string, string> = { 'x-api-key': this.key };
      if (have > 0 && etag) Object.assign(headers, { range: `bytes=${have}-`, 'if-range': etag });
      try {
        const response = await (this.givenFetch ?? fetch)(url, { headers });
        if (response.status !== 200 && response.status !== 206) {
          const text = await response.text().catch(() => '');
          const limited = await this.waitOutRateLimit(label, response, waitedOut, text);
          if (limited) {
            waitedOut += 1;
            attempt -= 1; // the server did not act on it: the retries for failures stay
            continue;
          }
          if (isRetryableStatus(response.status) && attempt < this.policy.retries) {
            await this.pause(label, attempt, `answered ${response.status}`, retryAfterOf(response.headers));
            continue;
          }
          throw apiErrorOf(response.status, text, label);
        }
        // A whole answer (the first, or the archive changed): start the file over.
        const whole = response.status === 200;
        etag = response.headers.get('etag') ?? undefined;
        if (whole) total = Number(response.headers.get('content-length') ?? -1);
        else total = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? total);
        const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
        let written = whole ? 0 : have;
        body.on('data', (chunk: Buffer) => options.onProgress?.((written += chunk.length), total));
        await pipeline(body, fs.createWriteStream(part, { flags: whole ? 'w' : 'a' }));
        if (total < 0 || (await fsp.stat(part)).size === total) break;
        throw new Error('the archive ended early');
      } catch (error) {
        if (error instanceof ApiError || attempt >= this.policy.retries) {
          if (!(error instanceof ApiError)) throw new ConnectionError(this.baseUrl, `download of export ${id} failed: ${connectionReason(error)}`, { cause: error });
          throw error;
        }
        await this.pause(label, attempt, connectionReason(error));
      }
    }
    await fsp.rename(part, file);
    return { size: (await fsp.stat(file)).size };
  }

  private async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.exchange<T>(method, path, options)).body;
  }

  /**
   * One request, retried as its kind allows; answers the status, headers and parsed body. A v2 create
   * (a POST that is not idempotent) is sent with an Idempotency-Key, the same on every attempt, so it
   * too may be retried after a lost answer: the server answers a retry with the first answer.
   */
  async exchange<T>(method: string, path: string, options: RequestOptions = {}): Promise<Exchange<T>> {
    const version = options.version ?? 'v1';
    const url = `${this.baseUrl}/${version}${path}${queryString(options.query)}`;
    const label = `${method} /${version}${path}`;
    const idempotencyKey = version === 'v2' && method === 'POST' && options.idempotent === false ? randomUUID() : undefined;
    const idempotent = idempotencyKey !== undefined || (options.idempotent ?? true);
    let waitedOut = 0;
    for (let attempt = 0; ; attempt += 1) {
      const headers: Record<string, string> = { 'x-api-key': this.key, ...options.headers };
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      let response: Answer;
      try {
        response = await this.send(url, method, headers, options);
        this.uploadBurst = policyBurstOf(response.headers, UPLOAD_BYTES_POLICY);
      } catch (error) {
        const reason = connectionReason(error);
        if (attempt < this.policy.retries && (idempotent || refused(error))) {
          await this.pause(label, attempt, reason);
          continue;
        }
        throw new ConnectionError(this.baseUrl, `cannot reach ${this.baseUrl} (${label}): ${reason}`, { cause: error });
      }
      if ((response.ok || response.status === 304) && options.raw) {
        // Only a request without a multipart body asks for bytes: its answer is fetch's Response.
        return { status: response.status, headers: response.headers, body: Buffer.from(await (response as Response).arrayBuffer()) as T };
      }
      if (response.ok || response.status === 304) {
        const text = await response.text();
        return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
      }
      const text = await response.text().catch(() => '');
      const status = response.status;
      // A 429 is refused before anything is done, so even a request that must not run twice is sent again.
      if (await this.waitOutRateLimit(label, response, waitedOut, text)) {
        waitedOut += 1;
        attempt -= 1; // the retries for failures stay
        continue;
      }
      // A 409 under an Idempotency-Key: the first attempt is still being answered; ask again.
      const stillAnswering = idempotencyKey !== undefined && status === 409 && /Idempotency-Key/.test(text);
      const mayRepeat = idempotent || status === 429 || status === 503;
      if ((isRetryableStatus(status) || stillAnswering) && mayRepeat && attempt < this.policy.retries) {
        await this.pause(label, attempt, `answered ${status}`, retryAfterOf(response.headers));
        continue;
      }
      throw apiErrorOf(status, text, label);
    }
  }

  private send(url: string, method: string, headers: Record<string, string>, options: RequestOptions): Promise<Answer> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const { multipart } = options;
    if (multipart) {
      headers['content-type'] = multipart.contentType;
      if (!this.givenFetch) return sendPieces(url, { method, headers, pieces: multipart.pieces, length: multipart.length, signal });
      return this.givenFetch(url, { method, headers, body: fetchBody(multipart), signal });
    }
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    return (this.givenFetch ?? fetch)(url, { method, headers, body, signal });
  }

  /**
   * A 429 with a Retry-After is waited out (true: try again), even past maxDelayMs; one that asks
   * for longer than the policy waits is thrown at once. False: no Retry-After (or not a 429), so the
   * ordinary retries decide.
   */
  private async waitOutRateLimit(label: string, response: Answer, waitedOut: number, text: string): Promise<boolean> {
    if (response.status !== 429) return false;
    const retryAfter = retryAfterOf(response.headers);
    const plan = planAfterRateLimit(this.policy, retryAfter, waitedOut);
    if (plan === 'backoff') return false;
    if (plan === 'give-up') throw apiErrorOf(429, text, label);
    this.onRetry?.({ request: label, attempt: waitedOut + 1, delayMs: plan.waitMs, reason: `answered 429 (Retry-After: ${retryAfter} s)` });
    await sleep(plan.waitMs);
    return true;
  }

  private async pause(label: string, attempt: number, reason: string, retryAfter?: number): Promise<void> {
    const delayMs = backoffMs(this.policy, attempt, retryAfter);
    this.onRetry?.({ request: label, attempt: attempt + 1, delayMs, reason });
    await sleep(delayMs);
  }
}
