// Runs the service: opens the context, registers the first key, listens, and shuts down gracefully.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Context, createContext } from './context.ts';
import { warmWebApp } from './http/web-app.ts';
import { passwordLinkUrl } from './http/account-links.ts';
import { bootstrapKey, defaultAdminId } from './services/keys.service.ts';
import { issueLink } from './services/users.service.ts';
import { removeOpenFolders } from './storage/staging.ts';
import { removeStaleUploads } from './storage/upload-temp.ts';
import { type BackgroundWork, startBackgroundWork } from './tasks/background.ts';

/** How long a stop waits for in-flight requests before it closes their connections. */
const REQUEST_GRACE_MS = 20_000;

export interface RunningServer {
  app: FastifyInstance;
  ctx: Context;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(config: Config, options: { worker: boolean }): Promise<RunningServer> {
  const ctx = await createContext(config);
  const app = await buildApp(ctx, { logger: { level: config.logLevel } });
  const generated = await bootstrapKey(ctx.db.kysely, config.bootstrapApiKey);
  // The first start: the owner of team default gets an invitation to set a password, and a key for
  // programs. Both are shown once (after listening, when the address is known): only digests are stored.
  const invitation = generated ? await issueLink(ctx.db.kysely, await defaultAdminId(ctx.db.kysely), 'invitation', null, config.accounts) : null;
  await removeStaleUploads(config, app.log);
  const url = await app.listen({ host: config.host, port: config.port });
  if (generated && invitation) {
    process.stdout.write(
      `\nThis is a new Annostore: user admin, the owner of team default, was created.\n\n` +
        `Open this link to set their password and sign in (it works once, until ${invitation.expiresAt}):\n\n  ${passwordLinkUrl(config.accounts.publicUrl ?? url, invitation.token)}\n\n` +
        `An API key of theirs, for programs:\n\n  ${generated}\n\nKeep both: they are not shown again.\n\n`,
    );
  }
  warmWebApp(app);
  const background: BackgroundWork | null = options.worker ? startBackgroundWork(ctx, app.log) : null;

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      // Both at once: the worker hands its task back while in-flight requests finish.
      await Promise.all([closeApp(app), background?.stop()]);
      await removeOpenFolders();
      await ctx.close();
    })();
    return stopping;
  };
  return { app, ctx, url, stop };
}

/**
 * Stops accepting connections and lets in-flight requests finish; a request still running after the
 * grace period has its connection closed (an upload then ends as an aborted one and cleans up).
 */
async function closeApp(app: FastifyInstance): Promise<void> {
  const grace = setTimeout(() => {
    app.log.warn('requests still running after the shutdown grace period; closing their connections');
    app.server.closeAllConnections();
  }, REQUEST_GRACE_MS);
  grace.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(grace);
  }
}

/** SIGTERM and SIGINT stop the server gracefully; a second signal ends the process at once. */
export function stopOnSignals(server: { stop(): Promise<void> }, log: { info(msg: string): void }): void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) process.exit(1);
    received = true;
    log.info(`${signal} received, shutting down`);
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
