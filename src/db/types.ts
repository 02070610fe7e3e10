// Table types for Kysely. Both dialects store the same values: timestamps as ISO 8601 text, booleans
// as 0/1 integers, JSON as text (so a stored document is sent without being parsed again), byte sizes
// as 64-bit integers (PostgreSQL hands those back as strings, SQLite as numbers: read them with
// `toSize`).
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type Id = Generated<number>;
/** A bigint column: number on insert, number or string on select depending on the dialect. */
type Bytes = ColumnType<number | string, number | bigint, number | bigint>;
/** A text column with a default: optional on insert. */
type TextWithDefault = ColumnType<string, string | undefined, string>;

export interface TeamsTable {
  id: Id;
  name: string;
  created_at: string;
}

export interface UsersTable {
  id: Id;
  team_id: number;
  login: string;
  created_at: string;
  /** `owner`, `admin` or `member` (see TeamRole). */
  role: TextWithDefault;
  email: ColumnType<string | null, string | null | undefined, string | null>;
  /** scrypt hash with its parameters (src/services/passwords.ts); null until the user sets a password. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  disabled_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ApiKeysTable {
  id: Id;
  user_id: number;
  /** The first characters of the key, shown in listings and used to find the row. */
  prefix: string;
  /** Hex SHA-256 of the whole key. */
  digest: string;
  read_only: number;
  /** `read`, `write` or `admin` (see KeyScope); `read_only` is 1 exactly when it is `read`. */
  scope: string;
  created_at: string;
  revoked_at: string | null;
  /** `api`, or `sign-in`: the key a user's password and single sign-on sessions act through, never presented. */
  kind: TextWithDefault;
}

export interface ProjectsTable {
  id: Id;
  team_id: number;
  title: string;
  description: TextWithDefault;
  size: Bytes;
  created_at: string;
  updated_at: string;
  /** The project role of a team member without a project_members row; null: none (0033). */
  member_default_role: string | null;
}

export interface ProjectMembersTable {
  project_id: number;
  user_id: number;
  role: string;
  created_at: string;
}

export interface ClassesTable {
  id: Id;
  project_id: number;
  title: string;
  shape: string;
  color: string;
  created_at: string;
}

export interface ProjectTagsTable {
  id: Id;
  project_id: number;
  scope: string;
  title: string;
  hotkey: string;
  /** One of TAG_VALUE_TYPES: what a value of the tag may be, as the client declared it. */
  value_type: TextWithDefault;
  /** A oneof_string tag's possible values as a JSON array of strings; null for other types. */
  possible_values: ColumnType<string | null, string | null | undefined, string | null>;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface DatasetsTable {
  id: Id;
  project_id: number;
  title: string;
  size: Bytes;
  /** 1 for a job's dataset of honeypot copies, left out of every list (0039_job_quality.ts). */
  hidden: ColumnType<number, number | undefined, number>;
  /** 1 for a dataset only the project's managers see: where ground truth lives (0043_managers_only_datasets.ts). */
  managers_only: ColumnType<number, number | undefined, number>;
  created_at: string;
  updated_at: string;
}

export interface BlobsTable {
  hash: string;
  size: Bytes;
  media_type: string;
  width: number | null;
  height: number | null;
  created_at: string;
  /** The thumbhash of the image (base64), made with its 256 px thumbnail; null until then. */
  thumbhash: ColumnType<string | null, string | null | undefined, string | null>;
  /** The DCT pHash (16 hex digits), made with the 256 px thumbnail; null until then. */
  phash: ColumnType<string | null, string | null | undefined, string | null>;
  /** The difference hash (16 hex digits), made with the pHash. */
  dhash: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A WebP thumbnail of an image blob, stored in the blob store under `key`, the hash of its bytes. */
export interface ThumbnailsTable {
  hash: string;
  /** The longest side it was made to fit (256 or 1024); a smaller image keeps its own size. */
  size: number;
  key: string;
  bytes: Bytes;
  width: number;
  height: number;
  created_at: string;
}

/** An image blob's embedding by one segment model: fp16 bytes in the blob store under `key`. */
export interface EmbeddingsTable {
  hash: string;
  model: string;
  key: string;
  bytes: Bytes;
  created_at: string;
}

export interface ImagesTable {
  id: Id;
  dataset_id: number;
  /** Copied from the dataset so one index answers a project's annotation pages. */
  project_id: number;
  name: string;
  hash: string;
  size: Bytes;
  width: number;
  height: number;
  description: string;
  /** The annotation objects, serialised exactly as the v1 annotation record shows them. */
  objects_json: string;
  /**
   * The objects' stable ids as a JSON array parallel to `objects_json`; null means 1..n. Anything that
   * changes how many objects there are, or their order, writes it (see annotation-edits.repository.ts).
   */
  object_ids: ColumnType<string | null, string | null | undefined, string | null>;
  /** The id the next new object gets; null means n + 1 (with `object_ids` null). */
  next_object_id: ColumnType<number | null, number | null | undefined, number | null>;
  /**
   * The values of object tags by object id, `{"<id>": {"<tag title>": value}}`, for the tags that have
   * one; null when none has (see src/formats/object-tag-values.ts).
   */
  object_tag_values: ColumnType<string | null, string | null | undefined, string | null>;
  /** How many objects objects_json holds, written with it (see image-summary.repository.ts). */
  object_count: ColumnType<number, number | undefined, number>;
  /**
   * The hash of the snapshot of the image's annotation content (description, objects_json, object_ids,
   * object_tag_values) in annotation_snapshots, written with any of them
   * (annotation-contents.repository.ts); null only until it is written.
   */
  annotation_hash: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  updated_at: string;
}

/**
 * One class's objects on one image (src/formats/object-summary.ts): their count, the extremes of
 * their boxes and histograms of box area (area_0…), aspect (aspect_0…) and centre (grid_0…).
 */
export type ImageClassesTable = {
  image_id: number;
  class_id: number;
  project_id: number;
  objects: number;
  min_area: Bytes;
  max_area: Bytes;
  min_side: number;
  max_side: number;
} & { [column: `area_${number}` | `aspect_${number}` | `grid_${number}`]: number };

/**
 * Running totals of the statistics (migration 0037), kept by triggers on images and image_classes:
 * per dataset and class, the sums of its images' image_classes rows (images: how many rows).
 */
export type DatasetClassTotalsTable = {
  dataset_id: number;
  project_id: number;
  class_id: number;
  images: number;
  objects: Bytes;
} & { [column: `area_${number}` | `aspect_${number}` | `grid_${number}`]: Bytes };

/** Per dataset and object count (the cap standing for it and above), the images and their objects. */
export interface DatasetImageTotalsTable {
  dataset_id: number;
  project_id: number;
  objects_bin: number;
  images: number;
  objects: Bytes;
}

/** Per dataset and image size, the images. */
export interface DatasetSizeTotalsTable {
  dataset_id: number;
  project_id: number;
  width: number;
  height: number;
  images: number;
}

export interface VersionsTable {
  id: Id;
  project_id: number;
  name: string;
  description: string;
  /** The split rule as given (JSON), so the version says how its subsets were made. */
  split: string;
  image_count: number;
  object_count: number;
  created_by: number | null;
  created_at: string;
}

export interface VersionClassesTable {
  version_id: number;
  /** The class's stable index: 1..N (0 is the background of masks). */
  idx: number;
  class_id: number;
  title: string;
  shape: string;
  color: string;
}

export interface VersionTagsTable {
  version_id: number;
  tag_id: number;
  title: string;
  scope: string;
  value_type: string;
}

export interface VersionImagesTable {
  version_id: number;
  image_id: number;
  dataset_id: number;
  dataset_title: string;
  name: string;
  hash: string;
  width: number;
  height: number;
  /** The image's annotation content as it was, by the hash of its snapshot in annotation_snapshots. */
  annotation_hash: string;
  /** The subset (train, val…) the image is in; '' when the version has no split. */
  subset: ColumnType<string, string | undefined, string>;
}

export interface VersionImageTagsTable {
  version_id: number;
  image_id: number;
  tag_id: number;
  value: string | null;
}

/** One model's predictions for one image (see migration 0028). */
/**
 * Where one model's predictions for an image agree with its annotation: at score thresholds s with
 * agree_above < s ≤ agree_upto, for one IoU type and threshold (src/evaluation/agreement.ts).
 */
export interface PredictionAgreementTable {
  image_id: number;
  model: string;
  /** bbox or segm. */
  iou_type: string;
  /** The IoU threshold in hundredths: 50, 55, … 95. */
  iou: number;
  agree_above: number;
  agree_upto: number;
}

export interface ImagePredictionsTable {
  image_id: number;
  project_id: number;
  model: string;
  /** The objects as GET /v2/images/:id/predictions sends them, each with its score. */
  objects_json: string;
  object_count: number;
  /** The highest score of the objects; 0 when there are none. */
  max_score: number;
  created_at: string;
  updated_at: string;
}

export interface ImageTagsTable {
  image_id: number;
  tag_id: number;
  /** A Supervisely tag value (number or string) as JSON text, or null for a tag without one. */
  value: string | null;
}

/** Which figure-scope tags an image's objects use, so a tag rename or delete finds them by index. */
export interface ObjectTagRefsTable {
  image_id: number;
  tag_id: number;
}

export interface StagedFilesTable {
  id: string;
  team_id: number;
  kind: string;
  format: string;
  name: string;
  hash: string;
  size: Bytes;
  created_at: string;
  expires_at: string;
}

export interface TasksTable {
  id: Id;
  team_id: number;
  created_by: number | null;
  type: string;
  status: string;
  size: Bytes;
  /** JSON text: the task's public meta (project, datasets, progress, error). */
  meta: string;
  /** The project it works on; null for work of no single project. No foreign key: history outlives it. */
  project_id: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  stop_requested: number;
  attempts: number;
}

/** JSON text: a task's input for its handler, never shown. */
export interface TaskInputsTable {
  task_id: number;
  input: string;
}

/** An import's plan, a part at a time (see import.repository.ts). */
export interface ImportPlansTable {
  task_id: number;
  /** 0, 1, 2, …: part n holds the plan's items from n × the part size on. */
  part: number;
  /** JSON array of the part's items. */
  items: string;
}

export interface ImportItemsTable {
  task_id: number;
  /** Index of the item in the task's plan. */
  item: number;
  /** The image it became, or null when the item was skipped (onConflict ignore, or failed). */
  image_id: number | null;
}

export interface ArchitecturesTable {
  id: Id;
  title: string;
  description: string;
  category_id: number;
  train_image: string;
  inference_image: string;
  deploy_image: string;
  created_at: string;
  updated_at: string;
}

export interface ModelsTable {
  id: Id;
  team_id: number;
  architecture_id: number;
  title: string;
  bucket: string;
  object_name: string;
  created_at: string;
  updated_at: string;
}

/** The first answer to a create sent with an Idempotency-Key, kept for its retries. */
export interface IdempotentRequestsTable {
  key_id: number;
  idempotency_key: string;
  fingerprint: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  created_at: string;
  expires_at: string;
}

/** A browser session: a cookie's token (by its digest) standing for the key it was opened with. */
export interface SessionsTable {
  id: Id;
  key_id: number;
  digest: string;
  created_at: string;
  expires_at: string;
  /** How it was opened: `key`, `password`, `oidc` or `link`. */
  method: TextWithDefault;
  address: ColumnType<string | null, string | null | undefined, string | null>;
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface UserLinksTable {
  id: Id;
  user_id: number;
  /** `invitation` or `reset`. */
  purpose: string;
  digest: string;
  created_by: number | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A single sign-on account linked to a user (0032_user_identities). */
export interface UserIdentitiesTable {
  id: Id;
  user_id: number;
  /** The OpenID Connect provider's issuer identifier. */
  issuer: string;
  /** The provider's `sub` for the account. */
  subject: string;
  /** The verified email the provider gave when the link was made. */
  email: string | null;
  created_at: string;
  last_used_at: string;
}

export interface WebhooksTable {
  id: Id;
  team_id: number;
  url: string;
  /** JSON text: the event types wanted. */
  events: string;
  secret: string;
  description: string;
  created_by: number | null;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: Id;
  webhook_id: number;
  event_type: string;
  message_id: string;
  /** JSON text: the body sent. */
  payload: string;
  created_at: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_attempt_at: string | null;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  finished_at: string | null;
}

/** A write request of an authenticated caller, as the audit trail keeps it. */
export interface AuditTable {
  id: Id;
  at: string;
  team_id: number;
  user_id: number;
  key_id: number;
  key_prefix: string;
  method: string;
  route: string;
  params: string | null;
  status: number;
  request_id: string;
  duration_ms: number;
}

/** Images per dataset and block of image ids (0022_image_id_blocks.ts), kept by triggers. */
export interface ImageIdBlocksTable {
  dataset_id: number;
  block: number;
  images: number;
}

/** A state of an image's annotation a revision replaced (0031_annotation_revisions.ts), or an image's annotation content (0036_annotation_hashes.ts), by its hash. */
export interface AnnotationSnapshotsTable {
  hash: string;
  /** The state's JSON text (src/formats/annotation-snapshot.ts), deflated. */
  body: Buffer;
  /** Bytes of the text before deflating. */
  size: number;
}

/** One change of an image's annotation: who made it, when, and the state before it by hash. */
export interface AnnotationRevisionsTable {
  id: Id;
  image_id: number;
  team_id: number;
  key_id: number | null;
  user_id: number | null;
  task_id: number | null;
  created_at: string;
  /** Null: the image had no annotation before (it was made by this change). */
  before_hash: string | null;
  added: number;
  removed: number;
  changed: number;
}

/** An image marked as ground truth, its objects frozen when marked (0039_job_quality.ts). */
export interface GroundTruthTable {
  image_id: number;
  project_id: number;
  width: number;
  height: number;
  objects_json: string;
  created_by: number | null;
  created_at: string;
}

/** A honeypot: a hidden copy of a ground-truth image in a job, and its last comparison (0039_job_quality.ts). */
export interface HoneypotsTable {
  image_id: number;
  project_id: number;
  job_id: number | null;
  source_image_id: number;
  truth_json: string;
  assignee_id: number | null;
  result_json: string | null;
  evaluated_at: string | null;
}

/** A set of images of one project to annotate and review (0034_jobs.ts). */
export interface JobsTable {
  id: Id;
  team_id: number;
  project_id: number;
  title: string;
  /** annotate, review or done. */
  stage: string;
  assignee_id: number;
  reviewer_id: number | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

/** An image of a job and its state: new, in_progress, submitted, accepted or rejected. */
export interface JobImagesTable {
  job_id: number;
  image_id: number;
  position: number;
  state: string;
  rejections: Generated<number>;
  time_spent_ms: Generated<number>;
  last_active_at: string | null;
  submitted_at: string | null;
  reviewed_at: string | null;
}

/** What a rejection says is wrong with an image, pinned to a point or an object. */
export interface ReviewIssuesTable {
  id: Id;
  job_id: number;
  image_id: number;
  x: number | null;
  y: number | null;
  object_id: number | null;
  /** open or resolved. */
  status: string;
  created_by: number | null;
  created_at: string;
  resolved_by: number | null;
  resolved_at: string | null;
}

export interface ReviewCommentsTable {
  id: Id;
  issue_id: number;
  user_id: number | null;
  body: string;
  created_at: string;
}

export interface Database {
  teams: TeamsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  idempotent_requests: IdempotentRequestsTable;
  sessions: SessionsTable;
  user_links: UserLinksTable;
  user_identities: UserIdentitiesTable;
  audit: AuditTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  classes: ClassesTable;
  project_tags: ProjectTagsTable;
  datasets: DatasetsTable;
  blobs: BlobsTable;
  thumbnails: ThumbnailsTable;
  embeddings: EmbeddingsTable;
  images: ImagesTable;
  image_id_blocks: ImageIdBlocksTable;
  image_classes: ImageClassesTable;
  dataset_class_totals: DatasetClassTotalsTable;
  dataset_image_totals: DatasetImageTotalsTable;
  dataset_size_totals: DatasetSizeTotalsTable;
  /** SQLite: holds a row while a bulk insert adds its totals itself (0044_deferred_totals.ts). */
  totals_deferred: { id: number };
  image_tags: ImageTagsTable;
  object_tag_refs: ObjectTagRefsTable;
  staged_files: StagedFilesTable;
  tasks: TasksTable;
  import_items: ImportItemsTable;
  import_plans: ImportPlansTable;
  task_inputs: TaskInputsTable;
  architectures: ArchitecturesTable;
  models: ModelsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  versions: VersionsTable;
  version_classes: VersionClassesTable;
  version_tags: VersionTagsTable;
  version_images: VersionImagesTable;
  version_image_tags: VersionImageTagsTable;
  annotation_snapshots: AnnotationSnapshotsTable;
  annotation_revisions: AnnotationRevisionsTable;
  image_predictions: ImagePredictionsTable;
  prediction_agreement: PredictionAgreementTable;
  jobs: JobsTable;
  ground_truth: GroundTruthTable;
  honeypots: HoneypotsTable;
  job_images: JobImagesTable;
  review_issues: ReviewIssuesTable;
  review_comments: ReviewCommentsTable;
}

export type ProjectRow = Selectable<ProjectsTable>;
export type DatasetRow = Selectable<DatasetsTable>;
export type ClassRow = Selectable<ClassesTable>;
export type ProjectTagRow = Selectable<ProjectTagsTable>;
export type ImageRow = Selectable<ImagesTable>;
export type TaskRow = Selectable<TasksTable>;
export type ModelRow = Selectable<ModelsTable>;
export type ArchitectureRow = Selectable<ArchitecturesTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewImage = Insertable<ImagesTable>;
