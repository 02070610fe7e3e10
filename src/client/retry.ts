// When and how long to wait before trying a request again.

export interface RetryPolicy {
  /** Attempts after the first one. */
  retries: number;
  /** Delay before the first retry, in ms; doubled for each next one. */
  baseDelayMs: number;
  /** No wait is longer than this, in ms. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseDelayMs: 250, maxDelayMs: 8_000 };

/** Statuses that may succeed on a second try: the server is overloaded or briefly broken. Never a 4xx but 429. */
export const isRetryableStatus = (status: number): boolean => status === 429 || status >= 500;

/**
 * Exponential backoff with full jitter: a random wait in [0, min(max, base * 2^attempt)], so clients
 * that failed together do not come back together. `attempt` counts from 0. A server's `Retry-After`
 * (seconds) is honoured when it asks for longer, still bounded by maxDelayMs.
 */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterSeconds?: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = Math.round(random() * ceiling);
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0) {
    return Math.min(policy.maxDelayMs, Math.max(jittered, retryAfterSeconds * 1000));
  }
  return jittered;
}

/** `Retry-After` in seconds, when it is given as a number. */
export function retryAfterOf(headers: Headers): number | undefined {
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number(raw);
  return Number.isFinite(seconds) ? seconds : undefined;
}
