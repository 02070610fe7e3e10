// The `annostore` command: parses the command line and hands over. Nothing else lives here.
import { Command, InvalidArgumentError, Option } from 'commander';
import { EXPORT_EXIT_CODES_HELP, parseOption, readConfigFile, runExportCommand } from './client/export-command.ts';
import { EXIT_CODES_HELP, FOLDERS_HELP, runImportCommand } from './client/import-command.ts';
import { ON_CONFLICT_MODES, type OnConflictT } from './client/client.ts';
import { ConfigError, loadClientSettings, loadConfig } from './config.ts';
import type { Context } from './context.ts';
import type { KeyScope } from './repositories/teams.repository.ts';
import { configureHeapGrowth } from './heap-growth.ts';

// The server side is loaded by the commands that use it, so that `import` (a client) starts in
// milliseconds instead of seconds.
const serverModule = () => import('./server.ts');
const teamsRepository = () => import('./repositories/teams.repository.ts');

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
async function withContext<T>(work: (ctx: Context) => Promise<T>): Promise<T> {
  const { createContext } = await import('./context.ts');
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
    const config = loadConfig();
    configureHeapGrowth(config.heapGrowthPercent);
    const { startServer, stopOnSignals } = await serverModule();
    const server = await startServer(config, { worker: options.worker });
    stopOnSignals(server, server.app.log);
  });

program
  .command('worker')
  .description('run a task worker without the API')
  .action(async () => {
    const config = loadConfig();
    configureHeapGrowth(config.heapGrowthPercent);
    const [{ startWorkerProcess }, { stopOnSignals }] = await Promise.all([import('./worker.ts'), serverModule()]);
    const worker = await startWorkerProcess(config);
    stopOnSignals(worker, worker.log);
  });

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(async () => {
    const [{ createDb }, { migrateToLatest }] = await Promise.all([import('./db/create-db.ts'), import('./db/migrate.ts')]);
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
  .addOption(new Option('--scope <scope>', 'what the key may do: read, write, or admin (write and manage keys)').choices(['read', 'write', 'admin']))
  .option('--read-only', 'the same as --scope read')
  .action(async (options: { team: string; user: string; scope?: KeyScope; readOnly?: boolean }) => {
    const { createKey } = await import('./services/keys.service.ts');
    if (options.readOnly && options.scope && options.scope !== 'read') program.error('--read-only and --scope disagree');
    const scope = options.readOnly ? 'read' : (options.scope ?? 'write');
    const key = await withContext((ctx) => createKey(ctx.db.kysely, { team: options.team, user: options.user, scope }));
    console.log(`created a ${scope} key for user ${options.user} of team ${options.team}; it is shown once:`);
    console.log(key);
  });
keys
  .command('list')
  .description('list keys by prefix (never the keys themselves)')
  .action(async () => {
    const teams = await teamsRepository();
    const rows = await withContext((ctx) => teams.listKeys(ctx.db.kysely));
    for (const k of rows) {
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
      console.log(`${k.prefix}\t${k.team}\t${k.user}\t${k.scope}\t${k.createdAt}\t${state}`);
    }
  });
keys
  .command('revoke <prefix>')
  .description('revoke the keys with this prefix (as `keys list` shows it)')
  .action(async (prefix: string) => {
    const teams = await teamsRepository();
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
    const { addArchitecture } = await import('./services/catalogue.service.ts');
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
    const { addModel } = await import('./services/catalogue.service.ts');
    const id = await withContext((ctx) => addModel(ctx.db.kysely, o));
    console.log(id);
  });

const importCommand = program
  .command('import <dir>')
  .description(
    'import a folder through the API: a Supervisely project, a COCO, Pascal VOC or YOLO dataset, or a folder of images; a second run sends no image twice',
  )
  .option('--url <url>', 'server address, e.g. http://127.0.0.1:8080 (default: $ANNOSTORE_URL)')
  .option('--key <key>', 'API key (default: $ANNOSTORE_API_KEY)')
  .option('--project <title>', 'project title: imports into the project of that title, or a new one (default: the folder name)')
  .addOption(new Option('--project-id <id>', 'import into this existing project').argParser(positiveInt).conflicts('project'))
  .addOption(new Option('--on-conflict <mode>', 'when an image name already exists in the dataset').choices(ON_CONFLICT_MODES))
  .addOption(
    new Option('--preset <n>', '0 or none: decide from the folder; 1 Supervisely; 2 images only; 3 COCO; 4 Pascal VOC; 5 YOLO').argParser((value) => {
      if (!/^[0-5]$/.test(value)) throw new InvalidArgumentError('must be 0, 1, 2, 3, 4 or 5');
      return Number(value);
    }),
  )
  .option('--concurrency <n>', 'upload requests in flight', positiveInt, 4)
  .addOption(
    new Option('--batch-files <n>', 'files per upload request').default(100).argParser((value) => {
      const n = positiveInt(value);
      if (n > 100) throw new InvalidArgumentError('must be at most 100');
      return n;
    }),
  )
  .option('--json', 'print one JSON summary on stdout (progress goes to stderr)')
  .addHelpText('after', FOLDERS_HELP + EXIT_CODES_HELP)
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .action(async (dir: string, o: { url?: string; key?: string; project?: string; projectId?: number; onConflict?: OnConflictT; preset?: number; concurrency: number; batchFiles: number; json?: boolean }) => {
    const defaults = loadClientSettings();
    const url = o.url ?? defaults.url;
    const key = o.key ?? defaults.key;
    if (!url) importCommand.error('error: no server address: pass --url or set ANNOSTORE_URL', { exitCode: 2 });
    if (!key) importCommand.error('error: no API key: pass --key or set ANNOSTORE_API_KEY', { exitCode: 2 });
    process.exitCode = await runImportCommand({ ...o, dir, url: url!, key: key!, json: o.json ?? false });
  });

/** Dataset ids of a --dataset value: one id, or several separated by commas. */
function datasetIds(value: string): number[] {
  return value.split(',').map((id) => {
    try {
      return positiveInt(id);
    } catch {
      throw new InvalidArgumentError('must be a dataset id, or ids separated by commas');
    }
  });
}

const exportCommand = program
  .command('export')
  .description('export a project, or some of its datasets, through the API and download the zip archive')
  .option('--url <url>', 'server address, e.g. http://127.0.0.1:8080 (default: $ANNOSTORE_URL)')
  .option('--key <key>', 'API key (default: $ANNOSTORE_API_KEY)')
  .addOption(new Option('--project <id>', 'the project to export').argParser(positiveInt))
  .addOption(new Option('--project-id <id>').argParser(positiveInt).hideHelp())
  .option(
    '--dataset <ids>',
    'only this dataset (repeatable, or ids separated by commas); the datasets must be of one project',
    (value: string, previous: number[] | undefined) => [...(previous ?? []), ...datasetIds(value)],
  )
  .addOption(new Option('--format <format>', 'the archive format (unless --config)').choices(['supervisely', 'coco', 'yolo', 'pascal_voc', 'masks']))
  .option('--config <file>', 'a JSON file of a DTL graph (docs/dtl.md) instead of --project, --dataset, --format and their options')
  .option('--no-images', 'leave the image files out')
  .option('--only-annotated', 'leave out images without objects')
  .option('--classes <titles>', 'keep only objects of these classes, comma-separated')
  .option(
    '--option <name=value>',
    "a format's own option, e.g. task=segment, splitsFromDatasets=true, segmentation=true, machine=false (repeatable)",
    (value: string, previous: string[]) => [...previous, value],
    [] as string[],
  )
  .option('--out <file>', 'where to write the archive (default: <project>-<format>.zip here)')
  .option('--json', 'print one JSON summary on stdout (progress goes to stderr)')
  .addHelpText('after', EXPORT_EXIT_CODES_HELP + '\nOptions and formats: docs/exports.md and docs/export-formats.md; graphs: docs/dtl.md')
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .action(
    async (o: {
      url?: string;
      key?: string;
      project?: number;
      projectId?: number;
      dataset?: number[];
      format?: string;
      config?: string;
      images: boolean;
      onlyAnnotated?: boolean;
      classes?: string;
      option: string[];
      out?: string;
      json?: boolean;
    }) => {
      const defaults = loadClientSettings();
      const url = o.url ?? defaults.url;
      const key = o.key ?? defaults.key;
      if (!url) exportCommand.error('error: no server address: pass --url or set ANNOSTORE_URL', { exitCode: 2 });
      if (!key) exportCommand.error('error: no API key: pass --key or set ANNOSTORE_API_KEY', { exitCode: 2 });
      // --project-id is the import command's spelling, taken here too.
      const projectId = o.project ?? o.projectId;
      if (o.config !== undefined) {
        const plain = projectId !== undefined || o.dataset !== undefined || o.format !== undefined || o.option.length > 0 || !o.images || o.onlyAnnotated || o.classes !== undefined;
        if (plain) exportCommand.error('error: a --config graph names its projects and its output itself: leave out --project, --dataset, --format and their options', { exitCode: 2 });
        let config: unknown[] = [];
        try {
          config = readConfigFile(o.config);
        } catch (error) {
          exportCommand.error(`error: ${(error as Error).message}`, { exitCode: 2 });
        }
        process.exitCode = await runExportCommand({ url: url!, key: key!, config, options: {}, out: o.out, json: o.json ?? false });
        return;
      }
      if (o.format === undefined) exportCommand.error('error: pass --format (or --config)', { exitCode: 2 });
      if (projectId === undefined && o.dataset === undefined) exportCommand.error('error: pass --project or --dataset', { exitCode: 2 });
      const options: Record<string, unknown> = {};
      try {
        for (const pair of o.option) {
          const [name, value] = parseOption(pair);
          options[name] = value;
        }
      } catch (error) {
        exportCommand.error(`error: ${(error as Error).message}`, { exitCode: 2 });
      }
      if (!o.images) options.includeImages = false;
      if (o.onlyAnnotated) options.onlyAnnotated = true;
      if (o.classes !== undefined) options.classes = parseOption(`classes=${o.classes}`)[1];
      process.exitCode = await runExportCommand({
        url: url!,
        key: key!,
        projectId,
        datasetIds: o.dataset,
        format: o.format,
        options,
        out: o.out,
        json: o.json ?? false,
      });
    },
  );

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`annostore: ${error instanceof Error ? error.message : String(error)}`);
  // A setting out of its rule is a usage error, as the import command counts them.
  process.exitCode = error instanceof ConfigError ? 2 : 1;
});
