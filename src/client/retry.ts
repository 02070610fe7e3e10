// When and how long to wait before trying a request again.

export interface RetryPolicy {
  /** Attempts after the first one. */
  retries: number;
  /** Delay before the first retry, in ms; doubled for each next one. */
  baseDelayMs: number;
  /** No backoff is longer than this, in ms. */
  maxDelayMs: number;
  /**
   * The longest Retry-After of a 429 that is waited out, in ms (default 60 s): a rate limit says
   * when a request will pass, so it is waited for even past maxDelayMs (coming back sooner would
   * only be refused again); one that asks for longer fails at once.
   */
  maxRetryAfterMs?: number;
  /** 429s with a Retry-After waited out, beyond `retries` (default 20): the server did not act on them. */
  rateLimitedRetries?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000, rateLimitedRetries: 20 };

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

/** What to do after a 429: wait this long and try again, give up now, or back off as after a 5xx. */
export type RateLimitPlan = { waitMs: number } | 'give-up' | 'backoff';

/**
 * After a 429 that says when (Retry-After, seconds): wait that long and up to a tenth more (at most a
 * second), so that clients refused together do not all come back in the same instant. Without a
 * usable Retry-After the ordinary backoff applies. One that asks for longer than the policy waits,
 * or past the policy's budget of such waits, gives up now: trying sooner would only be refused again.
 */
export function planAfterRateLimit(policy: RetryPolicy, retryAfterSeconds: number | undefined, waitedOut: number, random: () => number = Math.random): RateLimitPlan {
  if (retryAfterSeconds === undefined || !Number.isFinite(retryAfterSeconds) || retryAfterSeconds <= 0) return 'backoff';
  const waitMs = retryAfterSeconds * 1000;
  if (waitMs > (policy.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs!)) return 'give-up';
  if (waitedOut >= (policy.rateLimitedRetries ?? DEFAULT_RETRY.rateLimitedRetries!)) return 'give-up';
  return { waitMs: Math.round(waitMs + random() * Math.min(1000, waitMs / 10)) };
}
