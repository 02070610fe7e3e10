// Threads that run one of our modules. Bundled (bin/annostore.js), a thread's module has a bundle of
// its own beside the chunk that starts it; run from the TypeScript sources (tests, or where no bundle
// could be made), the thread registers tsx before it loads the module.
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A thread running `module`: the URL of its TypeScript source, relative to the caller's module. */
export function startModuleThread(module: URL, options: WorkerOptions = {}): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(module.href.replace(/\.ts$/, '.mjs')), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const load = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(load, { ...options, eval: true });
}
