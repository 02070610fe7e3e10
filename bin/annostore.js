#!/usr/bin/env node
// The `annostore` command. Sources are TypeScript, and a clone runs without a build step: at start the
// sources are bundled by esbuild into plain JavaScript (packages stay in node_modules; modules the
// command loads on demand stay chunks of their own) and kept under node_modules/.cache/annostore/, by a
// key of the sources' contents and of how they are built, so later starts only look the bundle up.
// Plain JavaScript needs no loader thread and no file-by-file compiling: a server starts faster and
// holds about 35 MB less. Where the bundle cannot be made or written, tsx runs the sources as they are,
// and the command says why.
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SRC = path.join(ROOT, 'src');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'annostore');
/** Entry points: the command, and the modules its threads run (see src/threads.ts). */
const ENTRIES = {
  cli: 'src/cli.ts',
  'annotation-thread': 'src/tasks/handlers/annotation-thread.ts',
  'sqlite-checkpoint-thread': 'src/db/sqlite-checkpoint-thread.ts',
  'blob-read-thread': 'src/storage/blob-read-thread.ts',
  'segment-encoder-thread': 'src/services/segment-encoder-thread.ts',
};
/** A half-written bundle this old was left by a process that died while it built. */
const ABANDONED_MS = 60 * 60 * 1000;

/** Everything the bundle is made of: the sources, this file (the build settings), tsconfig, esbuild. */
function bundleKey(esbuildVersion) {
  const hash = createHash('sha256').update(`${process.version}\0${esbuildVersion}\0`);
  for (const file of [fileURLToPath(import.meta.url), path.join(ROOT, 'tsconfig.json')]) hash.update(fs.readFileSync(file));
  const sources = fs
    .readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .sort();
  for (const file of sources) hash.update(`${path.relative(SRC, file)}\0`).update(fs.readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

function removeAbandoned() {
  for (const name of fs.readdirSync(CACHE)) {
    if (!name.includes('.')) continue; // a finished bundle: a running server may still load its chunks
    const dir = path.join(CACHE, name);
    if (Date.now() - fs.statSync(dir).mtimeMs > ABANDONED_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function bundledCli() {
  // esbuild itself is loaded only to build: most starts find their bundle.
  const { version } = createRequire(import.meta.url)('esbuild/package.json');
  const dir = path.join(CACHE, bundleKey(version));
  const cli = path.join(dir, 'cli.mjs');
  if (fs.existsSync(cli)) return cli;
  const esbuild = await import('esbuild');
  // Written beside, then renamed into place: a process starting meanwhile sees all of it or none.
  const temp = `${dir}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await esbuild.build({
      entryPoints: ENTRIES,
      absWorkingDir: ROOT,
      outdir: temp,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'silent',
    });
    fs.renameSync(temp, dir);
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    // Another process made the same bundle first.
    if (!fs.existsSync(cli)) throw error;
  } finally {
    // esbuild's service process would otherwise live as long as this one.
    await esbuild.stop();
  }
  removeAbandoned();
  return cli;
}

// The bundle runs from the cache: the web interface's sources are found through this.
process.env.ANNOSTORE_ROOT ||= ROOT;

let cli = null;
try {
  cli = await bundledCli();
} catch (error) {
  // esbuild lists what it could not build; the first will do.
  const first = error?.errors?.[0];
  const reason = first ? `${first.location ? `${first.location.file}:${first.location.line}: ` : ''}${first.text}` : String(error?.message ?? error).split('\n')[0];
  process.stderr.write(`annostore: running the TypeScript sources through tsx (no bundle: ${reason})\n`);
}
if (cli) {
  // Stack traces name the TypeScript sources.
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(cli).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
