// The production app on a fresh database, with keys for two teams and helpers to seed data.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { type AppOptions, buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import { createKey } from '../../src/services/keys.service.ts';
import { settledStamp, stampAfter } from './change-stamps.ts';
import type { DialectCase } from './dialects.ts';

export interface TestApp {
  app: FastifyInstance;
  ctx: Context;
  config: Config;
  /** Read-write key of team "alpha", user "alice". */
  key: string;
  /** Read-write key of another team, "beta". */
  otherKey: string;
  /** Read-only key of team "alpha". */
  readOnlyKey: string;
  /** A key of team alpha with the admin scope (may manage the team's keys). */
  adminKey: string;
  /** An injected request with the alpha key unless `headers` say otherwise. */
  request(options: InjectOptions & { key?: string | null }): Promise<LightMyRequestResponse>;
  /**
   * Runs `write` on a context of its own, as another process (`annostore keys revoke`, a worker) would,
   * and waits until the app can tell (its change stamp moved; at most two seconds): SQLite reads other
   * processes' commits at most once a millisecond, PostgreSQL's notification takes its own time.
   */
  inAnotherProcess<T>(write: (other: Context) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startTestApp(dialect: DialectCase, overrides: Partial<Config> = {}, appOptions: AppOptions = {}): Promise<TestApp> {
  const config = dialect.freshConfig(overrides);
  const ctx = await createContext(config);
  const app = await buildApp(ctx, appOptions);
  await app.ready();
  const db = ctx.db.kysely;
  const key = await createKey(db, { team: 'alpha', user: 'alice' });
  const otherKey = await createKey(db, { team: 'beta', user: 'bob' });
  const readOnlyKey = await createKey(db, { team: 'alpha', user: 'reader', scope: 'read' });
  const adminKey = await createKey(db, { team: 'alpha', user: 'owner', scope: 'admin' });
  return {
    app,
    ctx,
    config,
    key,
    otherKey,
    readOnlyKey,
    adminKey,
    request({ key: useKey, ...options }) {
      const chosen = useKey === undefined ? key : useKey;
      const headers = { ...(chosen ? { 'x-api-key': chosen } : {}), ...(options.headers ?? {}) };
      return app.inject({ ...options, headers });
    },
    async inAnotherProcess(write) {
      // Notifications of the app's own earlier writes may still be on their way: let them land first,
      // so the wait below ends on the other process's change and not on one of those.
      const before = await settledStamp(ctx.db, 6);
      const other = await createContext(config, { migrate: false });
      try {
        return await write(other);
      } finally {
        await other.close();
        await stampAfter(ctx.db, before);
      }
    },
    async close() {
      await app.close();
      await ctx.close();
      await dialect.cleanup(config);
    },
  };
}

/** The parsed body of a response, failing loudly when it is not JSON. */
export function json<T = unknown>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}
