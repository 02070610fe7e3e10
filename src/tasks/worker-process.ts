// `annostore worker`: the background work without the API.
import pino from 'pino';
import type { Config } from '../config.ts';
import { createContext } from '../context.ts';
import { removeStaleUploads } from '../storage/upload-temp.ts';
import { startBackgroundWork } from './background.ts';

export async function startWorkerProcess(config: Config) {
  const log = pino({ level: config.logLevel });
  const ctx = await createContext(config);
  await removeStaleUploads(config, log);
  const work = startBackgroundWork(ctx, log);
  log.info('worker started');
  return {
    log,
    async stop() {
      await work.stop();
      await ctx.close();
    },
  };
}
