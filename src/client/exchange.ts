// What one request to the server is and answers: the contract between the typed v2 groups
// (v2.ts) and the client that sends requests with retries (client.ts), kept apart so that neither
// imports the other's module.
import type { MultipartBody } from './multipart.ts';

export type Query = Record<string, string | number | boolean | readonly (string | number)[] | undefined>;

export interface RequestOptions {
  query?: Query | undefined;
  json?: unknown;
  /** Sent as it is by every attempt: a buffer or Blob body can be read again. */
  multipart?: MultipartBody;
  /**
   * Whether sending the request twice is harmless. A request that is not is retried only when the
   * server surely did not act on it: the connection was refused, or the answer was 429 or 503.
   */
  idempotent?: boolean;
  /** The API version of the path (default v1). */
  version?: 'v1' | 'v2';
  /** Headers beyond the key's (If-Match, Range, …). */
  headers?: Record<string, string>;
  /** Answer the body's bytes (a Buffer) instead of parsing it as JSON. */
  raw?: boolean;
}

/** An answer: its status, headers and JSON body. */
export interface Exchange<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** Sends one request, retried as its kind allows (AnnostoreClient is the one that does). */
export interface Exchanger {
  exchange<T>(method: string, path: string, options?: RequestOptions): Promise<Exchange<T>>;
}
