// What the client throws: the server's answer to a failed request, or no answer at all.

/** A failed request, as the contract's error body `{error, details: {message, …}}` describes it. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** The contract's error code, e.g. `VALIDATION`, `UNAUTHORIZED`, `NOT_FOUND`. */
    readonly code: string,
    /** `details.message` of the answer. */
    message: string,
    /** HTTP status. */
    readonly status: number,
    /** The whole `details` member, with any extra fields (e.g. the failing `field`). */
    readonly details: Record<string, unknown> = {},
    /** `METHOD /path` of the request, for messages. */
    readonly request = '',
  ) {
    super(message);
  }

  get isAuthError(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** The server could not be reached (refused, reset, DNS, timeout), after the retries ran out. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';

  constructor(
    readonly url: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Builds an ApiError from an HTTP answer whose body may or may not be the contract's: v1's
 * `{error, details}` or v2's problem details `{code, detail, errors, …}`.
 */
export function apiErrorOf(status: number, text: string, request: string): ApiError {
  try {
    const body = JSON.parse(text) as { error?: unknown; details?: { message?: unknown }; code?: unknown; detail?: unknown };
    if (typeof body.code === 'string' && typeof body.detail === 'string') {
      const { code, detail, ...rest } = body;
      return new ApiError(code, detail, status, rest, request);
    }
    if (typeof body.error === 'string') {
      const details = typeof body.details === 'object' && body.details !== null ? (body.details as Record<string, unknown>) : {};
      const message = typeof details.message === 'string' ? details.message : `${request} answered ${status}`;
      return new ApiError(body.error, message, status, details, request);
    }
  } catch {
    // not JSON: a proxy's page, say
  }
  const snippet = text.trim().slice(0, 200);
  return new ApiError(status >= 500 ? 'INTERNAL' : 'HTTP_ERROR', `${request} answered ${status}${snippet ? `: ${snippet}` : ''}`, status, {}, request);
}

/** A short reason for a network failure: undici hides the system error in `cause`. */
export function connectionReason(error: unknown): string {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e instanceof Error; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return `${code}${e.message && !e.message.includes(code) ? ` (${e.message})` : ''}`;
    if (!e.cause) return e.message;
    e = e.cause;
  }
  return String(error);
}
