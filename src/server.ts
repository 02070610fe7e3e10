// Runs the service: opens the context, registers the first key, listens, and shuts down gracefully.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Context, createContext } from './context.ts';
import { bootstrapKey } from './services/keys.service.ts';
import { type BackgroundWork, startBackgroundWork } from './tasks/background.ts';

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
  if (generated) {
    // Shown once: only its digest is stored.
    process.stdout.write(`\nNo API key was configured, so one was created for user admin of team default:\n\n  ${generated}\n\nKeep it: it is not shown again.\n\n`);
  }
  const url = await app.listen({ host: config.host, port: config.port });
  const background: BackgroundWork | null = options.worker ? startBackgroundWork(ctx, app.log) : null;

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      await app.close(); // stops accepting, lets in-flight requests finish
      await background?.stop();
      await ctx.close();
    })();
    return stopping;
  };
  return { app, ctx, url, stop };
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
