// The v1 client: `new AnnostoreClient({url, key})`, and the folder import built on it.
export * from './client.ts';
export { ApiError, ConnectionError } from './errors.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
export { V2Client, type Condition, type Tagged } from './v2.ts';
