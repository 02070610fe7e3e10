// Runs the real `annostore` command as a child process: a server, for tests where a process must die or
// restart, and `annostore import` as a user runs it.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/annostore.js');

export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Ends the process with the signal and waits for it to be gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  output(): string;
}

/** Starts `annostore <args>` with `env` and waits until /healthz answers (when it serves HTTP). */
export async function startServerProcess(env: Record<string, string>, args = ['serve']): Promise<ServerProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: port, HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = once(child, 'exit');
  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
  };
  if (args[0] === 'serve') {
    const deadline = Date.now() + 120_000; // a busy machine starts Node and the app's modules slowly
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await kill('SIGKILL');
        throw new Error(`server did not answer in time:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, child, kill, output: () => output };
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `annostore import …`; `watch` sees stdout as it comes and may kill the child. */
export function runImport(args: string[], watch?: (stdout: string, child: ChildProcess) => void): Promise<Run> {
  return runCommand(['import', ...args], watch);
}

/** Runs `annostore <args>` as a user would, without the ANNOSTORE_ defaults of the test's environment. */
export function runCommand(args: string[], watch?: (stdout: string, child: ChildProcess) => void, options: { cwd?: string } = {}): Promise<Run> {
  const env = { ...process.env };
  delete env.ANNOSTORE_URL;
  delete env.ANNOSTORE_API_KEY;
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], ...(options.cwd ? { cwd: options.cwd } : {}) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    watch?.(stdout, child);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}
