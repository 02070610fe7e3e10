// Rate limits (docs/rate-limits.md): per API key a token bucket of requests and one of request body
// bytes, and per client address a bucket of failed sign-ins. Charged after the key is known (every
// onRequest hook, authentication among them, has run) and before the body is read, so a refused
// upload leaves nothing behind. A refusal is 429 RATE_LIMITED with Retry-After in whole seconds.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BucketRule, Config } from '../../config.ts';
import type { Context } from '../../context.ts';
import { AppError, validation } from '../../errors.ts';
import { type BucketStore, type Charge, byteCharge, retryAfterSeconds } from '../../rate-limits/bucket-store.ts';
import { MemoryBuckets } from '../../rate-limits/memory-buckets.ts';
import { PostgresBuckets } from '../../rate-limits/postgres-buckets.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route signs in: each failed attempt counts against the caller's address (and the login it names). */
    signInAttempt?: boolean;
  }
}

type LimitName = 'requests' | 'upload-bytes' | 'sign-in' | 'sign-in-login';

const WORDS: Record<LimitName, string> = {
  requests: 'too many requests with this API key',
  'upload-bytes': 'too many bytes uploaded with this API key',
  'sign-in': 'too many failed sign-ins from this address',
  'sign-in-login': 'too many failed sign-ins for this login',
};

/** The login a sign-in names (POST /v2/session with a password), as its bucket is keyed. */
function loginOf(request: FastifyRequest): string | undefined {
  const body = request.body as { login?: unknown } | undefined;
  return typeof body?.login === 'string' ? body.login.toLowerCase() : undefined;
}

/** The RateLimit-Policy header's name, and the policy name of the bytes bucket in it. */
export const POLICY_HEADER = 'ratelimit-policy';
export const UPLOAD_BYTES_POLICY = 'upload-bytes';

/**
 * RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers): each key bucket's burst (`q`) and the
 * seconds it takes to fill (`w`), so that a client can size its requests to what passes at once
 * (`annostore import` keeps its upload batches within the bytes burst, so no batch leaves the key
 * in a debt that a later one would wait out for minutes).
 */
function policyHeader(requests: BucketRule | null, uploadBytes: BucketRule | null): string {
  const item = (name: string, rule: BucketRule) => `"${name}";q=${Math.floor(rule.burst)};w=${Math.max(1, Math.ceil(rule.burst / rule.perSecond))}`;
  return [requests && item('requests', requests), uploadBytes && item(UPLOAD_BYTES_POLICY, uploadBytes)].filter(Boolean).join(', ');
}

/** Where the buckets live: shared in PostgreSQL unless told otherwise, else this process's memory. */
export function createBucketStore(config: Config): BucketStore {
  const { store } = config.rateLimits;
  if (store === 'database' && !config.databaseUrl) throw new Error('RATE_LIMIT_STORE=database needs PostgreSQL (DATABASE_URL)');
  if (config.databaseUrl && store !== 'memory') return new PostgresBuckets({ url: config.databaseUrl, schema: config.databaseSchema });
  return new MemoryBuckets();
}

export function registerRateLimits(app: FastifyInstance, ctx: Context): void {
  const { requests, uploadBytes, signInFailures } = ctx.config.rateLimits;
  if (!requests && !uploadBytes && !signInFailures) return;
  const store = createBucketStore(ctx.config);
  app.addHook('onClose', () => store.close());

  async function charge(reply: FastifyReply, limit: LimitName, id: string, rule: BucketRule, cost: Charge): Promise<void> {
    const decision = await store.charge(id, rule, cost);
    if (decision.admitted) return;
    const seconds = retryAfterSeconds(decision);
    void reply.header('retry-after', String(seconds));
    throw new AppError('RATE_LIMITED', `${WORDS[limit]}: try again in ${seconds} s`, { limit, retryAfter: seconds });
  }

  const chargeSignIn = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // Taken up front and given back on success, so that guesses sent all at once count as well.
    await charge(reply, 'sign-in', `sign-in:${request.ip}`, signInFailures!, { need: 1, cost: 1 });
  };
  // Per login too (once the body names it), so that guesses at one account spread over many
  // addresses meet a limit as well. The login's bucket is charged whoever tries: a flood of wrong
  // guesses holds that login's sign-ins back for a while, which is the price of the limit.
  const chargeLogin = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const login = loginOf(request);
    if (login !== undefined) await charge(reply, 'sign-in-login', `sign-in-login:${login}`, signInFailures!, { need: 1, cost: 1 });
  };
  const refundSignIn = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (reply.statusCode >= 400) return;
    await store.charge(`sign-in:${request.ip}`, signInFailures!, { need: 0, cost: -1 });
    const login = loginOf(request);
    if (login !== undefined) await store.charge(`sign-in-login:${login}`, signInFailures!, { need: 0, cost: -1 });
  };
  if (signInFailures) {
    // Only the routes that sign in get these hooks: no other request pays for this limit.
    app.addHook('onRoute', (route) => {
      if (!route.config?.signInAttempt) return;
      route.preParsing = [...[route.preParsing ?? []].flat(), chargeSignIn];
      route.preHandler = [...[route.preHandler ?? []].flat(), chargeLogin];
      route.onResponse = [...[route.onResponse ?? []].flat(), refundSignIn];
    });
  }
  if (!requests && !uploadBytes) return;

  const policy = policyHeader(requests, uploadBytes);
  // preParsing: after every onRequest hook (the key is known), before the body is read.
  app.addHook('preParsing', async (request, reply) => {
    const principal = request.principal as FastifyRequest['principal'] | undefined;
    if (!principal) return;
    void reply.header(POLICY_HEADER, policy);
    if (requests) await charge(reply, 'requests', `requests:${principal.keyId}`, requests, { need: 1, cost: 1 });
    if (uploadBytes) {
      const length = Number(request.headers['content-length']);
      if (length > 0) {
        await charge(reply, 'upload-bytes', `bytes:${principal.keyId}`, uploadBytes, byteCharge(uploadBytes, length));
      } else if (request.headers['transfer-encoding'] !== undefined) {
        // A body of unknown length (chunked) cannot be charged before it is read, and the multipart
        // routes read it from the socket past any stream this hook could count: ask for the length
        // (browsers, fetch with a Blob or a string, and our client always send it).
        throw validation('send Content-Length: request bodies are limited by their length here (RATE_LIMIT_UPLOAD_BYTES_PER_SECOND)', {
          in: 'headers',
          pointer: '/content-length',
        });
      }
    }
  });
}
