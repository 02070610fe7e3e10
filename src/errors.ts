// The one catalogue of error codes. Services throw AppError with a code; the HTTP error handler maps
// the code to its status and to the contract's body `{error, details: {message, …}}`.

export const ERROR_STATUS = {
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  /** The caller's role in the project does not allow it (v1 answers it as FORBIDDEN). */
  PROJECT_ROLE_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetails {
  message: string;
  [extra: string]: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = { message, ...extra };
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string, extra: Record<string, unknown> = {}): AppError =>
  new AppError('NOT_FOUND', `${what} not found`, extra);

export const validation = (message: string, extra: Record<string, unknown> = {}): AppError =>
  new AppError('VALIDATION', message, extra);

export const preconditionFailed = (message: string, extra: Record<string, unknown> = {}): AppError =>
  new AppError('PRECONDITION_FAILED', message, extra);

export const conflict = (message: string, extra: Record<string, unknown> = {}): AppError =>
  new AppError('CONFLICT', message, extra);
