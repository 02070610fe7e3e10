// The `annostore` command: parses the command line and hands over. Nothing else lives here.
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from './config.ts';
import { createContext } from './context.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createDb } from './db/create-db.ts';
import * as teams from './repositories/teams.repository.ts';
import { addArchitecture, addModel } from './services/catalogue.service.ts';
import { createKey } from './services/keys.service.ts';
import { startServer, stopOnSignals } from './server.ts';
import { startWorkerProcess } from './tasks/worker-process.ts';

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const nonNegativeInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number');
  return n;
};

/** Runs `work` against a migrated context and closes it after. */
async function withContext<T>(work: (ctx: Awaited<ReturnType<typeof createContext>>) => Promise<T>): Promise<T> {
  const ctx = await createContext(loadConfig());
  try {
    return await work(ctx);
  } finally {
    await ctx.close();
  }
}

const program = new Command('annostore').description('Annostore: a data platform for image annotation');

program
  .command('serve', { isDefault: true })
  .description('serve the API (and run a task worker in the same process unless --no-worker)')
  .option('--no-worker', 'serve only; run workers with `annostore worker`')
  .action(async (options: { worker: boolean }) => {
    const server = await startServer(loadConfig(), { worker: options.worker });
    stopOnSignals(server, server.app.log);
  });

program
  .command('worker')
  .description('run a task worker without the API')
  .action(async () => {
    const worker = await startWorkerProcess(loadConfig());
    stopOnSignals(worker, worker.log);
  });

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(async () => {
    const db = await createDb(loadConfig());
    try {
      const applied = await migrateToLatest(db);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
    } finally {
      await db.close();
    }
  });

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .description('create a key (and its team and user as needed); prints the key alone on the last line')
  .requiredOption('--team <team>', 'team name')
  .requiredOption('--user <user>', 'user login')
  .option('--read-only', 'the key may only read')
  .action(async (options: { team: string; user: string; readOnly?: boolean }) => {
    const key = await withContext((ctx) =>
      createKey(ctx.db.kysely, { team: options.team, user: options.user, readOnly: options.readOnly ?? false }),
    );
    console.log(`created a${options.readOnly ? ' read-only' : ''} key for user ${options.user} of team ${options.team}; it is shown once:`);
    console.log(key);
  });
keys
  .command('list')
  .description('list keys by prefix (never the keys themselves)')
  .action(async () => {
    const rows = await withContext((ctx) => teams.listKeys(ctx.db.kysely));
    for (const k of rows) {
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
      console.log(`${k.prefix}\t${k.team}\t${k.user}\t${k.readOnly ? 'read-only' : 'read-write'}\t${k.createdAt}\t${state}`);
    }
  });
keys
  .command('revoke <prefix>')
  .description('revoke the keys with this prefix (as `keys list` shows it)')
  .action(async (prefix: string) => {
    const count = await withContext((ctx) => teams.revokeKeys(ctx.db.kysely, prefix));
    if (count === 0) {
      console.error(`no active key has the prefix ${prefix}`);
      process.exitCode = 1;
    } else console.log(`revoked ${count} key${count === 1 ? '' : 's'}`);
  });

program
  .command('architectures')
  .description('manage the architecture catalogue')
  .command('add')
  .requiredOption('--title <title>')
  .option('--description <text>', '', '')
  .option('--category-id <id>', 'category id', nonNegativeInt, 0)
  .option('--train-image <ref>', 'container image for training', '')
  .option('--inference-image <ref>', 'container image for inference', '')
  .option('--deploy-image <ref>', 'container image for deployment', '')
  .action(async (o: { title: string; description: string; categoryId: number; trainImage: string; inferenceImage: string; deployImage: string }) => {
    const id = await withContext((ctx) => addArchitecture(ctx.db.kysely, o));
    console.log(id);
  });

program
  .command('models')
  .description('manage the model catalogue')
  .command('add')
  .requiredOption('--team <team>', 'team that owns the model')
  .requiredOption('--title <title>')
  .requiredOption('--architecture-id <id>', 'architecture id', positiveInt)
  .requiredOption('--bucket <bucket>', 'where the weights are stored')
  .requiredOption('--object-name <name>', 'object name of the weights')
  .action(async (o: { team: string; title: string; architectureId: number; bucket: string; objectName: string }) => {
    const id = await withContext((ctx) => addModel(ctx.db.kysely, o));
    console.log(id);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`annostore: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
