// The typed client of API v2 (docs/api-v2.md): one group a resource, types from the schemas the
// server validates with. Single resources come with their ETag, so a change can be made conditional
// (`ifMatch`); lists come a page at a time (`list`) or as every item in turn (`all`); creates carry an
// Idempotency-Key and are retried safely (AnnostoreClient.exchange, through the Exchanger of exchange.ts).
import type { Static, TSchema } from 'typebox';
import type {
  ClassChangeBody,
  ClassV2,
  ClassesQuery,
  DatasetBody,
  DatasetChangeBody,
  DatasetListItem,
  DatasetV2,
  DatasetsQuery,
  NewClassBody,
  NewTagBody,
  ProjectListItem,
  ProjectV2,
  ProjectsQuery,
  TagChangeBody,
  TagV2,
  TagsQuery,
  newProjectBody,
  projectChangeBody,
} from '../http/schemas/catalog.ts';
import type { AnnotationBody, AnnotationPatchBody, ImageAnnotation } from '../http/schemas/image-annotation.ts';
import type { LocalImportBody, importBody } from '../http/schemas/requests.ts';
import type { Architecture, Model } from '../http/schemas/resources.ts';
import type { AuditItem, AuditListQuery } from '../http/schemas/v2-audit.ts';
import type { KeyBody, Me, NewKey, TeamKey } from '../http/schemas/v2-keys.ts';
import type { NewWebhook, WebhookBody, WebhookDelivery, WebhookView } from '../http/schemas/v2-webhooks.ts';
import type { ArchitectureBody, ModelBody, ModelChange } from '../http/schemas/v2-models.ts';
import type { HashCheckAnswer, TaskAnswer, TaskListQuery, TaskView } from '../http/schemas/v2-tasks.ts';
import type { ImageCopyBody, ImageListFilters, ImageMetadata, UploadedImages, imageChangeBody } from '../http/schemas/v2-images.ts';
import type {
  Comment,
  CommentBody,
  DatasetSplitBody,
  Issue,
  Issues,
  Job,
  JobChangeBody,
  JobFromFilterBody,
  JobImage,
  JobImagesQuery,
  Jobs,
  NextImage,
  NextQuery,
  ProjectJobFigures,
  RejectBody,
  ResolveBody,
} from '../http/schemas/v2-jobs.ts';
import type { GroundTruthImage, QualityReport } from '../http/schemas/v2-quality.ts';
import type { ListAnswer, ListQueryT } from '../http/schemas/v2.ts';
import type { Exchanger, Query, RequestOptions } from './exchange.ts';
import { multipartBody } from './multipart.ts';

/** A single resource and the ETag it was answered with. */
export interface Tagged<T> {
  value: T;
  etag: string;
}

/** Makes a change conditional: it is refused with 412 if the resource changed since this ETag. */
export interface Condition {
  ifMatch?: string;
}

type S<T extends TSchema> = Static<T>;
type BodyOf<F extends (...args: never[]) => TSchema> = Static<ReturnType<F>>;

export type ProjectV2T = S<typeof ProjectV2>;
export type DatasetV2T = S<typeof DatasetV2>;
export type ClassV2T = S<typeof ClassV2>;
export type TagV2T = S<typeof TagV2>;
export type TaskV2T = S<typeof TaskView>;
export type TeamKeyT = S<typeof TeamKey>;
export type ImageMetadataT = S<typeof ImageMetadata>;
export type ImageAnnotationT = S<typeof ImageAnnotation>;
export type ImageListQuery = ListQueryT & { [K in keyof typeof ImageListFilters]?: S<(typeof ImageListFilters)[K]> };

/** An image to upload: its name in the dataset and its bytes (a Blob streams from disk: fs.openAsBlob). */
export interface ImageUpload {
  name: string;
  content: Uint8Array | Blob;
}

export class V2Client {
  constructor(private readonly http: Exchanger) {}

  // The caller and the team's keys

  me(): Promise<S<typeof Me>> {
    return this.body('GET', '/me');
  }

  readonly keys = {
    list: (query: ListQueryT = {}) => this.list<TeamKeyT>('/keys', query),
    /** The new key is in the answer's `key`, this once only. */
    create: (body: S<typeof KeyBody>) => this.body<S<typeof NewKey>>('POST', '/keys', { json: body, idempotent: false }),
    revoke: (id: number) => this.body<void>('DELETE', `/keys/${id}`),
  };

  /** The team's webhooks (admin scope; docs/webhooks.md). */
  readonly webhooks = {
    list: (query: ListQueryT = {}) => this.list<S<typeof WebhookView>>('/webhooks', query),
    get: (id: number) => this.tagged<S<typeof WebhookView>>('GET', `/webhooks/${id}`),
    /** The signing secret is in the answer's `secret`, this once only. */
    create: (body: S<typeof WebhookBody>) => this.body<S<typeof NewWebhook>>('POST', '/webhooks', { json: body, idempotent: false }),
    remove: (id: number, condition: Condition = {}) => this.body<void>('DELETE', `/webhooks/${id}`, this.conditional({}, condition)),
    deliveries: (id: number, query: ListQueryT = {}) => this.list<S<typeof WebhookDelivery>>(`/webhooks/${id}/deliveries`, query),
    /** Queues a `webhook.test` event to the webhook; answers its delivery. */
    test: (id: number) => this.body<S<typeof WebhookDelivery>>('POST', `/webhooks/${id}/test`, { idempotent: false }),
  };

  /** The team's audit trail of writes, newest first (admin scope). */
  readonly audit = {
    list: (query: S<typeof AuditListQuery> = {}) => this.list<S<typeof AuditItem>>('/audit', query),
    all: (query: S<typeof AuditListQuery> = {}) => this.all<S<typeof AuditItem>>('/audit', query),
  };

  // The catalogue of a team's data

  readonly projects = {
    list: (query: S<typeof ProjectsQuery> = {}) => this.list<S<typeof ProjectListItem>>('/projects', query),
    all: (query: S<typeof ProjectsQuery> = {}) => this.all<S<typeof ProjectListItem>>('/projects', query),
    get: (id: number) => this.tagged<ProjectV2T>('GET', `/projects/${id}`),
    create: (body: BodyOf<typeof newProjectBody>) => this.tagged<ProjectV2T>('POST', '/projects', { json: body, idempotent: false }),
    change: (id: number, body: BodyOf<typeof projectChangeBody>, condition: Condition = {}) =>
      this.tagged<ProjectV2T>('PATCH', `/projects/${id}`, this.conditional({ json: body }, condition)),
    remove: (id: number, condition: Condition = {}) => this.body<void>('DELETE', `/projects/${id}`, this.conditional({}, condition)),
  };

  readonly datasets = {
    list: (query: S<typeof DatasetsQuery> = {}) => this.list<S<typeof DatasetListItem>>('/datasets', query),
    all: (query: S<typeof DatasetsQuery> = {}) => this.all<S<typeof DatasetListItem>>('/datasets', query),
    get: (id: number) => this.tagged<DatasetV2T>('GET', `/datasets/${id}`),
    create: (projectId: number, body: S<typeof DatasetBody>) =>
      this.tagged<DatasetV2T>('POST', `/projects/${projectId}/datasets`, { json: body, idempotent: false }),
    change: (id: number, body: S<typeof DatasetChangeBody>, condition: Condition = {}) =>
      this.tagged<DatasetV2T>('PATCH', `/datasets/${id}`, this.conditional({ json: body }, condition)),
    remove: (id: number, condition: Condition = {}) => this.body<void>('DELETE', `/datasets/${id}`, this.conditional({}, condition)),
  };

  readonly classes = {
    list: (projectId: number, query: S<typeof ClassesQuery> = {}) => this.list<ClassV2T>(`/projects/${projectId}/classes`, query),
    get: (id: number) => this.tagged<ClassV2T>('GET', `/classes/${id}`),
    create: (projectId: number, body: S<typeof NewClassBody>) =>
      this.tagged<ClassV2T>('POST', `/projects/${projectId}/classes`, { json: body, idempotent: false }),
    change: (id: number, body: S<typeof ClassChangeBody>, condition: Condition = {}) =>
      this.tagged<ClassV2T>('PATCH', `/classes/${id}`, this.conditional({ json: body }, condition)),
    /** A class that objects use is refused (409) unless `cascade` removes those objects too. */
    remove: (id: number, options: Condition & { cascade?: boolean } = {}) =>
      this.body<void>('DELETE', `/classes/${id}`, this.conditional({ query: { cascade: options.cascade } }, options)),
  };

  readonly tags = {
    list: (projectId: number, query: S<typeof TagsQuery> = {}) => this.list<TagV2T>(`/projects/${projectId}/tags`, query),
    get: (id: number) => this.tagged<TagV2T>('GET', `/tags/${id}`),
    create: (projectId: number, body: S<typeof NewTagBody>) =>
      this.tagged<TagV2T>('POST', `/projects/${projectId}/tags`, { json: body, idempotent: false }),
    change: (id: number, body: S<typeof TagChangeBody>, condition: Condition = {}) =>
      this.tagged<TagV2T>('PATCH', `/tags/${id}`, this.conditional({ json: body }, condition)),
    remove: (id: number, condition: Condition = {}) => this.body<void>('DELETE', `/tags/${id}`, this.conditional({}, condition)),
  };

  // Images, their files and their annotations

  readonly images = {
    list: (query: ImageListQuery) => this.list<ImageMetadataT>('/images', query),
    all: (query: ImageListQuery) => this.all<ImageMetadataT>('/images', query),
    get: (id: number) => this.tagged<ImageMetadataT>('GET', `/images/${id}`),
    /** At most 100 images a call; all are made or none. */
    upload: async (datasetId: number, files: readonly ImageUpload[]) => {
      const body = multipartBody(files.map((file, i) => ({ name: `file${i}`, filename: file.name, content: file.content })));
      return (await this.body<S<typeof UploadedImages>>('POST', `/datasets/${datasetId}/images`, { multipart: body, idempotent: false })).items;
    },
    change: (id: number, body: BodyOf<typeof imageChangeBody>, condition: Condition = {}) =>
      this.tagged<ImageMetadataT>('PATCH', `/images/${id}`, this.conditional({ json: body }, condition)),
    copy: (id: number, body: S<typeof ImageCopyBody>) => this.tagged<ImageMetadataT>('POST', `/images/${id}/copy`, { json: body, idempotent: false }),
    remove: (id: number, condition: Condition = {}) => this.body<void>('DELETE', `/images/${id}`, this.conditional({}, condition)),
    /** The image's bytes as uploaded, or one byte range of them (`end` inclusive). */
    file: (id: number, range?: { start: number; end: number }) =>
      this.body<Buffer>('GET', `/images/${id}/file`, { raw: true, ...(range ? { headers: { range: `bytes=${range.start}-${range.end}` } } : {}) }),
    /** A WebP fitted inside `size` × `size`. */
    thumbnail: (id: number, size: 256 | 1024 = 256) => this.body<Buffer>('GET', `/images/${id}/thumbnail`, { raw: true, query: { size } }),
  };

  readonly annotations = {
    get: (imageId: number) => this.tagged<ImageAnnotationT>('GET', `/images/${imageId}/annotation`),
    /** Replaces the annotation; objects sent with an `id` keep it, the others get new ones. */
    put: (imageId: number, body: S<typeof AnnotationBody>, condition: Condition = {}) =>
      this.tagged<ImageAnnotationT>('PUT', `/images/${imageId}/annotation`, this.conditional({ json: body }, condition)),
    /** Adds, changes and removes single objects by id. */
    patch: (imageId: number, body: S<typeof AnnotationPatchBody>, condition: Condition = {}) =>
      this.tagged<ImageAnnotationT>('PATCH', `/images/${imageId}/annotation`, this.conditional({ json: body }, condition)),
  };

  // Tasks and imports

  readonly tasks = {
    list: (query: S<typeof TaskListQuery> = {}) => this.list<TaskV2T>('/tasks', query),
    all: (query: S<typeof TaskListQuery> = {}) => this.all<TaskV2T>('/tasks', query),
    get: (id: number) => this.body<TaskV2T>('GET', `/tasks/${id}`),
    stop: (id: number) => this.body<TaskV2T>('POST', `/tasks/${id}/stop`),
    remove: (id: number, condition: Condition = {}) => this.body<void>('DELETE', `/tasks/${id}`, this.conditional({}, condition)),
  };

  readonly imports = {
    /** The hashes the server does not store yet: only those need uploading. */
    missing: async (hashes: readonly string[]) => (await this.body<S<typeof HashCheckAnswer>>('POST', '/imports/hash-check', { json: { hashes } })).missing,
    start: (body: BodyOf<typeof importBody>) => this.body<S<typeof TaskAnswer>>('POST', '/imports', { json: body, idempotent: false }),
    startLocal: (body: S<typeof LocalImportBody>) => this.body<S<typeof TaskAnswer>>('POST', '/imports/local', { json: body, idempotent: false }),
  };

  // Jobs and review (docs/jobs.md)

  readonly jobs = {
    /** A job of the project's images that a filter of GET /v2/images finds and that are in no job yet. */
    createFromFilter: (projectId: number, body: S<typeof JobFromFilterBody>) =>
      this.body<S<typeof Job>>('POST', `/projects/${projectId}/jobs`, { json: body, idempotent: false }),
    /** One job per assignee, each of the next `imagesPerJob` free images of the dataset. */
    split: async (datasetId: number, body: S<typeof DatasetSplitBody>) =>
      (await this.body<S<typeof Jobs>>('POST', `/datasets/${datasetId}/jobs`, { json: body, idempotent: false })).items,
    list: (projectId: number, query: ListQueryT = {}) => this.list<S<typeof Job>>(`/projects/${projectId}/jobs`, query),
    mine: (query: ListQueryT = {}) => this.list<S<typeof Job>>('/jobs/mine', query),
    figures: async (projectId: number) => (await this.body<S<typeof ProjectJobFigures>>('GET', `/projects/${projectId}/jobs/figures`)).items,
    get: (id: number) => this.body<S<typeof Job>>('GET', `/jobs/${id}`),
    change: (id: number, body: S<typeof JobChangeBody>) => this.body<S<typeof Job>>('PATCH', `/jobs/${id}`, { json: body }),
    remove: (id: number) => this.body<void>('DELETE', `/jobs/${id}`),
    images: (id: number, query: S<typeof JobImagesQuery> = {}) => this.list<S<typeof JobImage>>(`/jobs/${id}/images`, query),
    next: (id: number, query: S<typeof NextQuery> = {}) => this.body<S<typeof NextImage>>('GET', `/jobs/${id}/next`, { query: query as Query }),
    open: (id: number, imageId: number) => this.body<S<typeof JobImage>>('POST', `/jobs/${id}/images/${imageId}/open`, { idempotent: false }),
    submitImage: (id: number, imageId: number) => this.body<S<typeof JobImage>>('POST', `/jobs/${id}/images/${imageId}/submit`, { idempotent: false }),
    submit: (id: number) => this.body<S<typeof Job>>('POST', `/jobs/${id}/submit`, { idempotent: false }),
    accept: (id: number, imageId: number) => this.body<S<typeof JobImage>>('POST', `/jobs/${id}/images/${imageId}/accept`, { idempotent: false }),
    reject: (id: number, imageId: number, body: S<typeof RejectBody>) => this.body<S<typeof JobImage>>('POST', `/jobs/${id}/images/${imageId}/reject`, { json: body, idempotent: false }),
    issues: async (id: number, imageId: number) => (await this.body<S<typeof Issues>>('GET', `/jobs/${id}/images/${imageId}/issues`)).items,
    comment: (issueId: number, body: S<typeof CommentBody>) => this.body<S<typeof Comment>>('POST', `/issues/${issueId}/comments`, { json: body, idempotent: false }),
    resolve: (issueId: number, body: S<typeof ResolveBody> = {}) => this.body<S<typeof Issue>>('POST', `/issues/${issueId}/resolve`, { json: body, idempotent: false }),
  };

  // Quality: ground truth and the report (docs/jobs.md, Quality)
  readonly quality = {
    markGroundTruth: (projectId: number, imageIds: number[]) => this.body<void>('PUT', `/projects/${projectId}/ground-truth`, { json: { imageIds } }),
    unmarkGroundTruth: (projectId: number, imageIds: number[]) => this.body<void>('DELETE', `/projects/${projectId}/ground-truth`, { json: { imageIds } }),
    groundTruth: (projectId: number, query: ListQueryT = {}) => this.list<S<typeof GroundTruthImage>>(`/projects/${projectId}/ground-truth`, query),
    report: (projectId: number) => this.body<S<typeof QualityReport>>('GET', `/projects/${projectId}/quality`),
  };

  // Models and architectures

  readonly architectures = {
    list: (query: ListQueryT = {}) => this.list<S<typeof Architecture>>('/architectures', query),
    get: (id: number) => this.body<S<typeof Architecture>>('GET', `/architectures/${id}`),
    create: (body: S<typeof ArchitectureBody>) => this.body<S<typeof Architecture>>('POST', '/architectures', { json: body, idempotent: false }),
    remove: (id: number) => this.body<void>('DELETE', `/architectures/${id}`),
  };

  readonly models = {
    list: (query: ListQueryT = {}) => this.list<S<typeof Model>>('/models', query),
    all: (query: ListQueryT = {}) => this.all<S<typeof Model>>('/models', query),
    get: (id: number) => this.tagged<S<typeof Model>>('GET', `/models/${id}`),
    create: (body: S<typeof ModelBody>) => this.tagged<S<typeof Model>>('POST', '/models', { json: body, idempotent: false }),
    change: (id: number, body: S<typeof ModelChange>, condition: Condition = {}) =>
      this.tagged<S<typeof Model>>('PATCH', `/models/${id}`, this.conditional({ json: body }, condition)),
    remove: (id: number, condition: Condition = {}) => this.body<void>('DELETE', `/models/${id}`, this.conditional({}, condition)),
  };

  // Plumbing

  private async body<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.http.exchange<T>(method, path, { ...options, version: 'v2' })).body;
  }

  private async tagged<T>(method: string, path: string, options: RequestOptions = {}): Promise<Tagged<T>> {
    const answer = await this.http.exchange<T>(method, path, { ...options, version: 'v2' });
    return { value: answer.body, etag: answer.headers.get('etag') ?? '' };
  }

  private conditional(options: RequestOptions, condition: Condition): RequestOptions {
    return condition.ifMatch === undefined ? options : { ...options, headers: { ...options.headers, 'if-match': condition.ifMatch } };
  }

  /** One page of a list; pass its `nextCursor` as `cursor` for the next. */
  list<T>(path: string, query: object): Promise<ListAnswer<T>> {
    return this.body<ListAnswer<T>>('GET', path, { query: query as Query });
  }

  /** Every item of a list, page after page. */
  async *all<T>(path: string, query: object): AsyncGenerator<T> {
    let cursor: string | undefined = (query as { cursor?: string }).cursor;
    do {
      const page: ListAnswer<T> = await this.list<T>(path, { ...query, cursor });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
}
