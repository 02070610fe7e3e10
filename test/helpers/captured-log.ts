// The app's log kept in memory, line by line, so a test can check what the server reported.
import { Writable } from 'node:stream';
import type { FastifyServerOptions } from 'fastify';

export interface LogLine {
  level: number;
  msg?: string;
  err?: { type?: string; message?: string };
  res?: { statusCode?: number };
  /** The status of a request line (one per request, see src/http/plugins/request-log.ts). */
  status?: number;
  [member: string]: unknown;
}

/** pino's number for `error`: a line at this level or above is a failure the operator must look at. */
export const ERROR_LEVEL = 50;

export interface CapturedLog {
  /** For buildApp: every line at `info` and above lands in `lines`. */
  logger: FastifyServerOptions['logger'];
  lines: LogLine[];
  /** Lines that report a failure of the server: error level or above, or an answer of 5xx. */
  failures(): LogLine[];
  /** Forgets the lines so far, so a test sees only its own. */
  clear(): void;
}

export function captureLog(): CapturedLog {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as LogLine);
      callback();
    },
  });
  return {
    logger: { level: 'info', stream },
    lines,
    failures: () => lines.filter((line) => line.level >= ERROR_LEVEL || (line.res?.statusCode ?? line.status ?? 0) >= 500),
    clear: () => void lines.splice(0),
  };
}
