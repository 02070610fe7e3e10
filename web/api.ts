// Every call the web interface makes to the server, typed from the API's own schemas. The session
// cookie goes with each request by itself (same origin); nothing here ever holds an API key beyond
// the sign-in call that exchanges it.
import type { Static } from 'typebox';
import type { ClassUsage, ClassV2, DatasetListItem, ProjectListItem, TagV2 } from '../src/http/schemas/catalog.ts';
import type { ImageAnnotation } from '../src/http/schemas/image-annotation.ts';
import type { AnnotationRevision } from '../src/http/schemas/annotation-revisions.ts';
import type { ImageOverlays } from '../src/http/schemas/image-overlays.ts';
import type { Evaluation as EvaluationSchema, ImagePredictions as ImagePredictionsSchema } from '../src/http/schemas/predictions.ts';
import type { ImageMetadata } from '../src/http/schemas/v2-images.ts';
import type { ProjectStats as ProjectStatsSchema } from '../src/http/schemas/v2-stats.ts';
import type { UploadMetadata as UploadMetadataSchema, importBody } from '../src/http/schemas/requests.ts';
import type { HashingAnswer, NearDuplicateReport as NearDuplicateReportSchema, SimilarImages as SimilarImagesSchema } from '../src/http/schemas/v2-near-duplicates.ts';
import type { SegmentModel as SegmentModelSchema, SegmentModelList as SegmentModelListSchema } from '../src/http/schemas/v2-segment.ts';
import type { Session as SessionSchema, SingleSignOn as SingleSignOnSchema } from '../src/http/schemas/v2-session.ts';
import type { Leakage as LeakageSchema, Version as VersionSchema, VersionBody, VersionDiff as VersionDiffSchema } from '../src/http/schemas/v2-versions.ts';
import type { TeamKey as TeamKeySchema } from '../src/http/schemas/v2-keys.ts';
import type { Account as AccountSchema, InvitedUser as InvitedUserSchema, LinkInfo as LinkInfoSchema, SessionListing, UserV2 } from '../src/http/schemas/v2-users.ts';
import type { HashCheckAnswer, TaskAnswer, TaskView, UploadAnswer } from '../src/http/schemas/v2-tasks.ts';
import type { ListAnswer } from '../src/http/schemas/v2.ts';
import type { CallerRole as CallerRoleSchema, CallerRoles as CallerRolesSchema, MAX_ROLES_ASKED, ProjectMember as ProjectMemberSchema, ProjectMembers as ProjectMembersSchema } from '../src/http/schemas/v2-project-members.ts';
import type { GroundTruthImage as GroundTruthImageSchema, QualityReport as QualityReportSchema } from '../src/http/schemas/v2-quality.ts';
import type { AssigneeFigures as AssigneeFiguresSchema, IssueWithComments, Job as JobSchema, JobImage as JobImageSchema, NextImage as NextImageSchema } from '../src/http/schemas/v2-jobs.ts';

export type Session = Static<typeof SessionSchema>;
/** The single sign-on the server offers. */
export type SingleSignOn = Static<typeof SingleSignOnSchema>;
export type User = Static<typeof UserV2>;
export type InvitedUser = Static<typeof InvitedUserSchema>;
export type LinkInfo = Static<typeof LinkInfoSchema>;
export type Account = Static<typeof AccountSchema>;
export type SessionItem = Static<typeof SessionListing>;
export type TeamKey = Static<typeof TeamKeySchema>;
export type Project = Static<typeof ProjectListItem>;
export type Dataset = Static<typeof DatasetListItem>;
export type ImageClass = Static<typeof ClassV2>;
export type Tag = Static<typeof TagV2>;
export type Image = Static<typeof ImageMetadata>;
export type Page<T> = ListAnswer<T>;
export type Task = Static<typeof TaskView>;

export type Annotation = Static<typeof ImageAnnotation>;
export type Revision = Static<typeof AnnotationRevision>;
export type AnnotationObject = Annotation['objects'][number];
export type Point = AnnotationObject['points']['exterior'][number];
/** An image's objects as a gallery tile draws them. */
export type TileOverlay = Static<typeof ImageOverlays>['items'][number];

/** An answer other than 2xx, with the problem's detail when the server gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The problem document's members (`errors` with their JSON pointers, a 412's `etag`), when sent. */
    readonly problem: { errors?: { pointer: string; detail: string }[]; etag?: string } = {},
  ) {
    super(message);
  }
}

/** Told when an answer says the session has ended, so the interface can ask to sign in again. */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (handler: () => void): void => {
  onSignedOut = handler;
};

/** Told, while a request waits out a rate limit (429), how many seconds it waits; 0 once it is sent again. */
export type RateLimitWait = (seconds: number) => void;

/** The longest Retry-After waited out, and the waits one request may make (as `annostore import`'s client). */
const MAX_RETRY_AFTER_S = 60;
const MAX_RATE_LIMIT_WAITS = 20;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }, { once: true });
  });
}

/**
 * fetch, waiting out a 429 for its Retry-After and sending the request again: the limiter refuses
 * before anything is done (before the body is even read), so a create or an upload may be resent.
 * Up to a tenth more is waited (at most a second), so that tabs refused together do not come back
 * together; a Retry-After past a minute, or a 21st wait, gives the 429 to the caller.
 */
async function fetchWaitingOut(url: string, init: RequestInit, onWait?: RateLimitWait): Promise<Response> {
  for (let waits = 0; ; waits += 1) {
    const res = await fetch(url, init);
    const seconds = Number(res.headers.get('retry-after'));
    if (res.status !== 429 || !(seconds > 0 && seconds <= MAX_RETRY_AFTER_S) || waits >= MAX_RATE_LIMIT_WAITS) return res;
    await res.body?.cancel();
    onWait?.(seconds);
    await sleep(seconds * 1000 + Math.random() * Math.min(1000, seconds * 100), init.signal ?? undefined);
    onWait?.(0);
  }
}

async function send(method: string, url: string, body?: unknown, options: { signal?: AbortSignal; ifMatch?: string; onWait?: RateLimitWait } = {}): Promise<{ res: Response; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  // A refused sign-in is told at once ("too many failed sign-ins: try again in N s"), not waited out.
  const res = url === '/v2/session' || url.startsWith('/v2/password-links/') ? await fetch(url, init) : await fetchWaitingOut(url, init, options.onWait);
  const text = res.status === 204 ? '' : await res.text();
  if (!res.ok) {
    let detail = res.statusText;
    let problem: ApiError['problem'] = {};
    try {
      problem = JSON.parse(text) as ApiError['problem'] & { detail?: string };
      detail = (problem as { detail?: string }).detail ?? detail;
    } catch {
      // not a problem document
    }
    if (res.status === 401 && url !== '/v2/session' && !url.startsWith('/v2/password-links/')) onSignedOut();
    throw new ApiError(res.status, detail, problem);
  }
  return { res, text };
}

async function call<T>(method: string, url: string, body?: unknown, signal?: AbortSignal, onWait?: RateLimitWait): Promise<T> {
  const { text } = await send(method, url, body, { ...(signal ? { signal } : {}), ...(onWait ? { onWait } : {}) });
  return (text ? JSON.parse(text) : undefined) as T;
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The segment tool's model (docs/segment.md). */
export type SegmentModel = Static<typeof SegmentModelSchema>;
/** The segment tool's model: the default, or the one named. */
export const getSegmentModel = (model?: string): Promise<SegmentModel> => call('GET', `/v2/segment/model${query({ model })}`);
export type SegmentModelChoice = Static<typeof SegmentModelListSchema>['items'][number];
/** The models the segment tool may use: the default first. */
export const listSegmentModels = async (): Promise<SegmentModelChoice[]> => (await call<{ items: SegmentModelChoice[] }>('GET', '/v2/segment/models')).items;
/** Where an image's embedding by `model` is (fp16 bytes, cached by the browser for good). */
export const embeddingUrl = (imageId: number, model: string): string => `/v2/images/${imageId}/embedding${query({ model })}`;

export const signIn = (key: string): Promise<Session> => call('POST', '/v2/session', { key });
/** The single sign-on the server offers, or null (a 404: none is configured). */
export async function getSingleSignOn(): Promise<SingleSignOn | null> {
  const res = await fetch('/v2/session/oidc', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  return res.ok ? ((await res.json()) as SingleSignOn) : null;
}
export const signInWithPassword = (login: string, password: string): Promise<Session> => call('POST', '/v2/session', { login, password });
export const describeLink = (token: string): Promise<LinkInfo> => call('POST', '/v2/password-links/lookup', { token });
/** Sets the password a one-time link is for, and signs in. */
export const usePasswordLink = (token: string, password: string): Promise<Session> => call('POST', '/v2/password-links/use', { token, password });
export const getAccount = (): Promise<Account> => call('GET', '/v2/account');
export const changePassword = (password: string, currentPassword?: string): Promise<void> =>
  call('PUT', '/v2/account/password', currentPassword === undefined ? { password } : { password, currentPassword });
export const listOwnKeys = async (): Promise<TeamKey[]> => (await call<{ items: TeamKey[] }>('GET', '/v2/account/keys')).items;
export const createOwnKey = (scope: TeamKey['scope']): Promise<TeamKey & { key: string }> => call('POST', '/v2/account/keys', { scope });
export const revokeOwnKey = (id: number): Promise<void> => call('DELETE', `/v2/account/keys/${id}`);
export const listSessions = async (userId?: number): Promise<SessionItem[]> => (await call<{ items: SessionItem[] }>('GET', `/v2/sessions${query({ userId })}`)).items;
export const revokeSession = (id: number): Promise<void> => call('DELETE', `/v2/sessions/${id}`);
export const listUsers = (): Promise<User[]> => all('/v2/users');
export const inviteUser = (login: string, role: User['role'], email?: string): Promise<InvitedUser> => call('POST', '/v2/users', email ? { login, role, email } : { login, role });
export const changeUser = (id: number, change: { role?: User['role']; disabled?: boolean }): Promise<User> => call('PATCH', `/v2/users/${id}`, change);
export const newPasswordLink = (id: number): Promise<InvitedUser> => call('POST', `/v2/users/${id}/password-link`);
export const signOut = (): Promise<void> => call('DELETE', '/v2/session');
export const currentSession = (): Promise<Session> => call('GET', '/v2/session');

/** Every page of a list, up to `max` items. */
async function all<T>(url: string, max = 10_000): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await call<Page<T>>('GET', `${url}${url.includes('?') ? '&' : '?'}${query({ limit: 1000, cursor }).slice(1)}`);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && items.length < max);
  return items;
}

export const listProjects = (): Promise<Project[]> => all('/v2/projects?counts=true');
export const getProject = (id: number): Promise<Project> => call('GET', `/v2/projects/${id}`);
export const listDatasets = (projectId: number): Promise<Dataset[]> => all(`/v2/datasets${query({ projectId, counts: true })}`);
export const getDataset = (id: number): Promise<Dataset> => call('GET', `/v2/datasets/${id}`);
export const listClasses = (projectId: number): Promise<ImageClass[]> => all(`/v2/projects/${projectId}/classes`);
export const listObjectTags = (projectId: number): Promise<Tag[]> => all(`/v2/projects/${projectId}/tags?scope=figures`);
export const listImageTags = (projectId: number): Promise<Tag[]> => all(`/v2/projects/${projectId}/tags?scope=images`);
export const listTags = (projectId: number): Promise<Tag[]> => all(`/v2/projects/${projectId}/tags`);
export type TagDefinition = Pick<Tag, 'title' | 'hotkey' | 'valueType' | 'values'>;
export const createTag = (projectId: number, tag: TagDefinition & Pick<Tag, 'scope'>): Promise<Tag> => call('POST', `/v2/projects/${projectId}/tags`, tag);
/** A tag with its ETag, to change or delete it only as it was read. */
export const getTag = (id: number): Promise<Tagged<Tag>> => tagged('GET', `/v2/tags/${id}`);
export const changeTag = (id: number, change: Partial<TagDefinition>, etag: string): Promise<Tagged<Tag>> => tagged('PATCH', `/v2/tags/${id}`, change, etag);
export const deleteTag = async (id: number, etag: string): Promise<void> => void (await send('DELETE', `/v2/tags/${id}`, undefined, { ifMatch: etag }));
/** How many images (and, for an object tag, objects) carry the tag. */
export const tagUsage = (id: number): Promise<{ images: number; objects?: number }> => call('GET', `/v2/tags/${id}/usage`);

/** The filters that combine (GET /v2/images and the statistics take them alike), by their API names. */
export interface CombinedFilter {
  datasetIds?: number[];
  classAny?: number[];
  classAll?: number[];
  classNone?: number[];
  tagAny?: number[];
  tagAll?: number[];
  tagNone?: number[];
  /** `tagId:value`: images whose image tag holds the value. */
  tagValue?: string[];
  annotated?: boolean;
  minObjects?: number;
  maxObjects?: number;
  boxClassId?: number;
  boxMinArea?: number;
  boxMaxArea?: number;
  boxMinSide?: number;
  boxMaxSide?: number;
}

export type ImageSort = 'id' | '-id' | 'name' | 'objects' | '-objects';

/** What a gallery shows: one dataset or a whole project, narrowed by a class, a tag, a name and the combined filters. */
export interface ImageFilter extends CombinedFilter {
  datasetId?: number;
  projectId?: number;
  classId?: number;
  tagId?: number;
  nameContains?: string;
  /** Images with a prediction scored at least this. */
  predictionScore?: number;
  /** Images whose predictions of this model, scored disagreeScore or more, do not match the annotation at IoU disagreeIou. */
  disagreeModel?: string;
  disagreeScore?: number;
  disagreeIou?: number;
  disagreeIouType?: 'bbox' | 'segm';
  sort?: ImageSort;
}

/** A filter as API query members: lists as comma-separated ids. */
export const apiFilter = (filter: ImageFilter): Record<string, string | number | boolean | undefined> =>
  Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, Array.isArray(v) ? (v.length ? v.join(',') : undefined) : (v as string | number | boolean | undefined)]));

export type ProjectStats = Static<typeof ProjectStatsSchema>;
/** A project's statistics, of the images the filter finds (its dataset or project is the project's). */
export const getProjectStats = (projectId: number, filter: ImageFilter): Promise<ProjectStats> => {
  const { datasetId, classId, tagId, ...rest } = filter;
  // The statistics do not take the disagreement filter.
  const narrowed: ImageFilter = { ...rest, projectId: undefined, sort: undefined, disagreeModel: undefined, disagreeScore: undefined, disagreeIou: undefined, disagreeIouType: undefined };
  // The statistics take the list's single ids as the combined filters' lists.
  if (datasetId) narrowed.datasetIds = [...(rest.datasetIds ?? []), datasetId];
  if (classId) narrowed.classAll = [...(rest.classAll ?? []), classId];
  if (tagId) narrowed.tagAll = [...(rest.tagAll ?? []), tagId];
  return call('GET', `/v2/projects/${projectId}/stats${query(apiFilter(narrowed))}`);
};

/** A page of the list, after `cursor`, or from position `offset` (a jump into the list). */
export const listImages = (filter: ImageFilter, options: { limit: number; cursor?: string; offset?: number; count?: boolean }, signal?: AbortSignal): Promise<Page<Image>> =>
  call('GET', `/v2/images${query({ ...apiFilter(filter), ...options })}`, undefined, signal);

/** The objects of up to 200 images, for drawing over their tiles. */
export const getTileOverlays = async (ids: number[], signal?: AbortSignal): Promise<TileOverlay[]> =>
  (await call<{ items: TileOverlay[] }>('GET', `/v2/images/overlays${query({ ids: ids.join(',') })}`, undefined, signal)).items;

/** How many images the filter finds (one item is asked for, with the total). */
export const countImages = async (filter: ImageFilter): Promise<number> => (await listImages(filter, { limit: 1, count: true })).total ?? 0;

export const getImage = (id: number): Promise<Image> => call('GET', `/v2/images/${id}`);
/** A resource with the ETag a change of it sends back in If-Match. */
export interface Tagged<T> {
  value: T;
  etag: string;
}

async function tagged<T>(method: string, url: string, body?: unknown, ifMatch?: string): Promise<Tagged<T>> {
  const { res, text } = await send(method, url, body, ifMatch ? { ifMatch } : {});
  return { value: JSON.parse(text) as T, etag: res.headers.get('etag') ?? '' };
}

export const getAnnotation = (id: number): Promise<Tagged<Annotation>> => tagged('GET', `/v2/images/${id}/annotation`);

/** The image's revisions, newest first, a page at a time. */
export const listRevisions = (id: number, cursor?: string): Promise<Page<Revision>> => call('GET', `/v2/images/${id}/annotation/revisions${query({ limit: 50, cursor })}`);
/** A revision and the annotation as it left it. */
export const getRevision = (id: number, revisionId: number): Promise<{ revision: Revision; annotation: Annotation }> => call('GET', `/v2/images/${id}/annotation/revisions/${revisionId}`);
/** Restores a revision's annotation as a new revision, if the annotation is still the one `etag` names (else a 412 ApiError). */
export const restoreRevision = (id: number, revisionId: number, etag: string): Promise<Tagged<Annotation>> =>
  tagged('POST', `/v2/images/${id}/annotation/revisions/${revisionId}/restore`, undefined, etag);

/** Replaces the image's description and tags, keeping its objects as they are (412 if it changed meanwhile). */
export const saveImageDetails = (id: number, current: Tagged<Annotation>, change: { description: string; tags: string[] }): Promise<Tagged<Annotation>> =>
  tagged('PUT', `/v2/images/${id}/annotation`, { description: change.description, tags: change.tags, objects: current.value.objects }, current.etag);
/** The body of a PUT of an image's annotation: objects with the ids they keep, new ones without. */
export interface AnnotationBody {
  description: string;
  tags: string[];
  objects: (Omit<AnnotationObject, 'id'> & { id?: number })[];
}

/** Replaces the whole annotation if it is still the one `etag` names (else a 412 ApiError). */
export const saveAnnotation = (id: number, body: AnnotationBody, etag: string): Promise<Tagged<Annotation>> => tagged('PUT', `/v2/images/${id}/annotation`, body, etag);
export const imageFileUrl = (id: number): string => `/v2/images/${id}/file`;
export const thumbnailUrl = (id: number): string => `/v2/images/${id}/thumbnail`;

/** What a tasks list is narrowed to; `housekeeping: false` leaves out thumbnails tasks. */
export interface TaskFilter {
  type?: string;
  projectId?: number;
  status?: string;
  housekeeping?: boolean;
}

/** A page of the team's tasks, newest first: the first without a cursor, the next with the page's `nextCursor`. */
export const listTasks = (options: TaskFilter & { limit: number; cursor?: string; count?: boolean }): Promise<Page<Task>> => call('GET', `/v2/tasks${query({ ...options })}`);
export const getTask = (id: number): Promise<Task> => call('GET', `/v2/tasks/${id}`);
export const stopTask = (id: number): Promise<Task> => call('POST', `/v2/tasks/${id}/stop`);

export const EXPORT_FORMATS = ['supervisely', 'coco', 'yolo', 'pascal_voc', 'masks'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportRequest {
  projectId: number;
  datasetIds?: number[];
  /** A version of the project, exported instead of the project as it is now. */
  version?: number;
  format: ExportFormat;
  /** includeImages, onlyAnnotated, classes and the format's own (docs/exports.md). */
  options: Record<string, unknown>;
}

export const startExport = async (request: ExportRequest): Promise<Task> => (await call<{ task: Task }>('POST', '/v2/exports', request)).task;
export const exportArchiveUrl = (id: number): string => `/v2/exports/${id}/archive`;

/** Step 1 of an import: which of these image hashes (base64 SHA-256) the server lacks. */
export const missingHashes = async (hashes: string[], onWait?: RateLimitWait): Promise<string[]> =>
  (await call<Static<typeof HashCheckAnswer>>('POST', '/v2/imports/hash-check', { hashes }, undefined, onWait)).missing;

export type UploadMetadata = Static<typeof UploadMetadataSchema>;
export type UploadedFile = Static<typeof UploadAnswer>['files'][number];

/** Step 2: uploads files of an import (at most 100 a call), each with its JSON part; each is answered on its own. */
export async function uploadImportFiles(files: { metadata: UploadMetadata; file: Blob; name: string }[], onWait?: RateLimitWait): Promise<UploadedFile[]> {
  const form = new FormData();
  files.forEach((f, i) => {
    form.append(`f${i}`, JSON.stringify(f.metadata));
    form.append(`f${i}-file`, f.file, f.name);
  });
  // Content-addressed files: sending them again after a 429 (which stored nothing) is harmless.
  const res = await fetchWaitingOut('/v2/imports/files', { method: 'POST', credentials: 'same-origin', body: form }, onWait);
  if (!res.ok) {
    if (res.status === 401) onSignedOut();
    throw new ApiError(res.status, ((await res.json().catch(() => ({}))) as { detail?: string }).detail ?? res.statusText);
  }
  return ((await res.json()) as Static<typeof UploadAnswer>).files;
}

export type ImportBody = Static<ReturnType<typeof importBody>>;

/** Step 3: starts the import of the uploaded files (images by hash, the other files by fileId). */
export const startImport = async (body: ImportBody, onWait?: RateLimitWait): Promise<Task> => (await call<Static<typeof TaskAnswer>>('POST', '/v2/imports', body, undefined, onWait)).task;

export const deleteImage = (id: number): Promise<void> => call('DELETE', `/v2/images/${id}`);

/** Adds an image tag (by title) to the image, leaving its objects, description and other tags be. */
export async function addImageTag(id: number, title: string): Promise<void> {
  const current = await getAnnotation(id);
  if (current.value.tags.includes(title)) return;
  await tagged('PUT', `/v2/images/${id}/annotation`, { description: current.value.description, tags: [...current.value.tags, title], objects: current.value.objects }, current.etag);
}

/** Runs `work` on each id, a few at a time; answers the ids it failed for. */
export async function eachOf(ids: number[], work: (id: number) => Promise<void>, onDone: (done: number) => void): Promise<number[]> {
  const queue = [...ids];
  const failed: number[] = [];
  let done = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        await work(id).catch(() => failed.push(id!));
        onDone((done += 1));
      }
    }),
  );
  return failed;
}

// A project's schema (the settings page and the editor's "new class"): changes of one resource go
// under If-Match with the ETag read when the user began the change, so someone else's change made
// meanwhile is a 412 rather than overwritten.
type NewClass = { title: string; shape: ImageClass['shape']; color?: string };
const removeTagged = async (url: string, etag: string): Promise<void> => void (await send('DELETE', url, undefined, { ifMatch: etag }));

export const createProject = (body: { title: string; description?: string }): Promise<Project> => call('POST', '/v2/projects', body);
export const readProject = (id: number): Promise<Tagged<Project>> => tagged('GET', `/v2/projects/${id}`);
export const changeProject = (id: number, change: { title?: string; description?: string }, etag: string): Promise<Tagged<Project>> => tagged('PATCH', `/v2/projects/${id}`, change, etag);
export const deleteProject = (id: number, etag: string): Promise<void> => removeTagged(`/v2/projects/${id}`, etag);

/** `managersOnly`: a dataset only the project's managers see, where ground truth belongs (docs/jobs.md). */
export const createDataset = (projectId: number, title: string, managersOnly = false): Promise<Dataset> =>
  call('POST', `/v2/projects/${projectId}/datasets`, managersOnly ? { title, managersOnly } : { title });
export const readDataset = (id: number): Promise<Tagged<Dataset>> => tagged('GET', `/v2/datasets/${id}`);
export const renameDataset = (id: number, title: string, etag: string): Promise<Tagged<Dataset>> => tagged('PATCH', `/v2/datasets/${id}`, { title }, etag);
export const setManagersOnly = (id: number, managersOnly: boolean, etag: string): Promise<Tagged<Dataset>> => tagged('PATCH', `/v2/datasets/${id}`, { managersOnly }, etag);
export const deleteDataset = (id: number, etag: string): Promise<void> => removeTagged(`/v2/datasets/${id}`, etag);

/** Without a colour, the server gives the palette's next one apart from the project's others. */
export const createClass = (projectId: number, body: NewClass): Promise<ImageClass> => call('POST', `/v2/projects/${projectId}/classes`, body);
export const readClass = (id: number): Promise<Tagged<ImageClass>> => tagged('GET', `/v2/classes/${id}`);
export const changeClass = (id: number, change: { title?: string; color?: string }, etag: string): Promise<Tagged<ImageClass>> => tagged('PATCH', `/v2/classes/${id}`, change, etag);
/** Deletes the class and every object of it (`cascade=true`). */
export const deleteClass = (id: number, etag: string): Promise<void> => removeTagged(`/v2/classes/${id}?cascade=true`, etag);
/** What deleting the class removes: its objects, and the images holding them. */
export const classUsage = (id: number): Promise<Static<typeof ClassUsage>> => call('GET', `/v2/classes/${id}/usage`);
export type NearDuplicateReport = Static<typeof NearDuplicateReportSchema>;
export type SimilarImages = Static<typeof SimilarImagesSchema>;
/** The project's groups of near-duplicate images at `distance`, a page of `limit` groups from `offset`. */
export const nearDuplicates = (projectId: number, options: { distance: number; crossDataset: boolean; limit: number; offset: number }): Promise<NearDuplicateReport> =>
  call('GET', `/v2/projects/${projectId}/near-duplicates${query({ ...options, crossDataset: options.crossDataset || undefined })}`);
export const similarImages = (imageId: number, distance?: number): Promise<SimilarImages> => call('GET', `/v2/images/${imageId}/similar${query({ distance })}`);
/** Queues the making of the perceptual hashes the project's images lack. */
export const hashProject = (projectId: number): Promise<Static<typeof HashingAnswer>> => call('POST', `/v2/projects/${projectId}/near-duplicates/hashes`);

export type Version = Static<typeof VersionSchema>;
export type VersionInput = Static<typeof VersionBody>;
export type VersionDiff = Static<typeof VersionDiffSchema>;
export type Leakage = Static<typeof LeakageSchema>;
export const listVersions = (projectId: number): Promise<Version[]> => all(`/v2/projects/${projectId}/versions`);
export const createVersion = (projectId: number, input: VersionInput): Promise<Version> => call('POST', `/v2/projects/${projectId}/versions`, input);
export const deleteVersion = async (id: number): Promise<void> => void (await send('DELETE', `/v2/versions/${id}`));
export const diffVersions = (from: number, to: number): Promise<VersionDiff> => call('GET', `/v2/versions/${to}/diff${query({ from })}`);
export const versionLeakage = (id: number): Promise<Leakage> => call('GET', `/v2/versions/${id}/leakage${query({ limit: 20 })}`);
export type ImagePredictions = Static<typeof ImagePredictionsSchema>;
export type ModelPredictions = ImagePredictions['models'][number];
export type Prediction = ModelPredictions['objects'][number];
export type Evaluation = Static<typeof EvaluationSchema>;
export const getPredictions = (imageId: number): Promise<ImagePredictions> => call('GET', `/v2/images/${imageId}/predictions`);
/** Replaces one model's predictions for the image (a rejected one is left out). */
export const putPredictions = (imageId: number, model: string, objects: Prediction[]): Promise<ModelPredictions> =>
  call('PUT', `/v2/images/${imageId}/predictions`, {
    model,
    objects: objects.map((o) => ({ classId: o.classId, points: o.points, bitmap: o.bitmap, score: o.score })),
  });
export interface ProjectModel {
  model: string;
  images: number;
  objects: number;
}
export const listPredictionModels = async (projectId: number): Promise<ProjectModel[]> =>
  (await call<{ items: ProjectModel[] }>('GET', `/v2/projects/${projectId}/predictions/models`)).items;
export const getEvaluation = (projectId: number, params: { model: string; iouType: 'bbox' | 'segm'; datasetId?: number }): Promise<Evaluation> =>
  call('GET', `/v2/projects/${projectId}/evaluation${query({ ...params })}`);

// Jobs and review (docs/jobs.md)
export type Job = Static<typeof JobSchema>;
export type JobImage = Static<typeof JobImageSchema>;
export type Issue = Static<typeof IssueWithComments>;
export type AssigneeFigures = Static<typeof AssigneeFiguresSchema>;
export type NextImage = Static<typeof NextImageSchema>;
export const listJobs = (projectId: number): Promise<Job[]> => all(`/v2/projects/${projectId}/jobs`);
export const listMyJobs = (): Promise<Job[]> => all('/v2/jobs/mine');
export const getJob = (id: number): Promise<Job> => call('GET', `/v2/jobs/${id}`);
export const jobFigures = async (projectId: number): Promise<AssigneeFigures[]> => (await call<{ items: AssigneeFigures[] }>('GET', `/v2/projects/${projectId}/jobs/figures`)).items;
export const splitDataset = async (datasetId: number, body: { imagesPerJob: number; assigneeIds: number[]; reviewerId: number | null; honeypots?: number }): Promise<Job[]> =>
  (await call<{ items: Job[] }>('POST', `/v2/datasets/${datasetId}/jobs`, body)).items;
export const jobFromFilter = (projectId: number, body: { title: string; assigneeId: number; reviewerId: number | null; honeypots?: number; filter: Record<string, unknown> }): Promise<Job> =>
  call('POST', `/v2/projects/${projectId}/jobs`, body);
export const nextJobImage = (jobId: number, params: { queue?: 'annotate' | 'review'; after?: number } = {}): Promise<NextImage> => call('GET', `/v2/jobs/${jobId}/next${query(params)}`);
export const jobImages = (jobId: number): Promise<JobImage[]> => all(`/v2/jobs/${jobId}/images`);
export const openJobImage = (jobId: number, imageId: number): Promise<JobImage> => call('POST', `/v2/jobs/${jobId}/images/${imageId}/open`);
export const submitJobImage = (jobId: number, imageId: number): Promise<JobImage> => call('POST', `/v2/jobs/${jobId}/images/${imageId}/submit`);
export const submitJob = (jobId: number): Promise<Job> => call('POST', `/v2/jobs/${jobId}/submit`);
export const acceptJobImage = (jobId: number, imageId: number): Promise<JobImage> => call('POST', `/v2/jobs/${jobId}/images/${imageId}/accept`);
export const rejectJobImage = (jobId: number, imageId: number, issues: { x?: number; y?: number; objectId?: number; comment: string }[]): Promise<JobImage> =>
  call('POST', `/v2/jobs/${jobId}/images/${imageId}/reject`, { issues });
export const imageIssues = async (jobId: number, imageId: number): Promise<Issue[]> => (await call<{ items: Issue[] }>('GET', `/v2/jobs/${jobId}/images/${imageId}/issues`)).items;
export const commentOnIssue = (issueId: number, body: string): Promise<unknown> => call('POST', `/v2/issues/${issueId}/comments`, { body });
export const resolveIssue = (issueId: number, comment?: string): Promise<unknown> => call('POST', `/v2/issues/${issueId}/resolve`, comment ? { comment } : {});

// Project roles (docs/accounts.md#project-roles): the caller's, and a project's members for its managers.
export type ProjectRole = Static<typeof CallerRoleSchema>['role'];
export type ProjectMembers = Static<typeof ProjectMembersSchema>;
export type ProjectMember = Static<typeof ProjectMemberSchema>;
/** The caller's role in the project, as this session's key may use it. */
export const getProjectRole = async (projectId: number): Promise<ProjectRole> => (await call<Static<typeof CallerRoleSchema>>('GET', `/v2/projects/${projectId}/role`)).role;
/** The most projects a request asks of; its type holds it equal to the server's limit (the schema is not bundled). */
const ROLES_A_REQUEST: typeof MAX_ROLES_ASKED = 500;
/** The caller's role in each of the projects; a project they have none in is null. */
export async function getProjectRoles(projectIds: readonly number[]): Promise<Map<number, ProjectRole | null>> {
  const roles = new Map<number, ProjectRole | null>(projectIds.map((id) => [id, null]));
  for (let at = 0; at < projectIds.length; at += ROLES_A_REQUEST) {
    const { items } = await call<Static<typeof CallerRolesSchema>>('GET', `/v2/project-roles${query({ projectIds: projectIds.slice(at, at + ROLES_A_REQUEST).join(',') })}`);
    for (const { projectId, role } of items) roles.set(projectId, role);
  }
  return roles;
}
export const listProjectMembers = (projectId: number): Promise<ProjectMembers> => call('GET', `/v2/projects/${projectId}/members`);
/** The role of the team's members without one of their own here; null hides the project from them. */
export const setMemberDefaultRole = (projectId: number, memberDefaultRole: ProjectRole | null): Promise<ProjectMembers> =>
  call('PATCH', `/v2/projects/${projectId}/members`, { memberDefaultRole });
export const putProjectMember = (projectId: number, userId: number, role: ProjectRole): Promise<ProjectMember> => call('PUT', `/v2/projects/${projectId}/members/${userId}`, { role });
export const removeProjectMember = (projectId: number, userId: number): Promise<void> => call('DELETE', `/v2/projects/${projectId}/members/${userId}`);

// Quality: ground truth and the report on honeypots (docs/jobs.md "Quality"), a manager's.
export type GroundTruthImage = Static<typeof GroundTruthImageSchema>;
export type QualityReport = Static<typeof QualityReportSchema>;
/** The most image ids one ground-truth request names (MAX_GROUND_TRUTH_PER_REQUEST): a larger selection goes in several. */
const GROUND_TRUTH_CHUNK = 1000;
async function inChunks(method: 'PUT' | 'DELETE', projectId: number, imageIds: number[]): Promise<void> {
  for (let i = 0; i < imageIds.length; i += GROUND_TRUTH_CHUNK) {
    await call(method, `/v2/projects/${projectId}/ground-truth`, { imageIds: imageIds.slice(i, i + GROUND_TRUTH_CHUNK) });
  }
}
export const markGroundTruth = (projectId: number, imageIds: number[]): Promise<void> => inChunks('PUT', projectId, imageIds);
export const unmarkGroundTruth = (projectId: number, imageIds: number[]): Promise<void> => inChunks('DELETE', projectId, imageIds);
export const listGroundTruth = (projectId: number): Promise<GroundTruthImage[]> => all(`/v2/projects/${projectId}/ground-truth`);
/** How many ground-truth images the project has, counted up to `max` (a job takes at most 100 honeypots); `more` when there are others. */
export async function countGroundTruth(projectId: number, max = 100): Promise<{ count: number; more: boolean }> {
  const page = await call<Page<GroundTruthImage>>('GET', `/v2/projects/${projectId}/ground-truth${query({ limit: max })}`);
  return { count: page.items.length, more: page.nextCursor !== null };
}
export const qualityReport = (projectId: number): Promise<QualityReport> => call('GET', `/v2/projects/${projectId}/quality`);
