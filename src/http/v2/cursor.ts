// Cursor paging. A cursor is the sort key of the last item of a page, as base64url JSON: opaque to
// clients, read back by the list that wrote it. Lists ask their repository for the items after that
// key (keyset paging: no OFFSET, and stable under inserts elsewhere in the list), one more than the
// page holds to learn whether a next page exists. Nothing in a cursor is trusted: the repository still
// filters by the caller's team, so a forged cursor can only move where a page starts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validation } from '../../errors.ts';
import type { ListAnswer } from '../schemas/v2.ts';

export function encodeCursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

const badCursor = () => validation('cursor is not one this list gave', { in: 'querystring', pointer: '/cursor' });

/**
 * The sort key a cursor holds, checked by `isKey` (a list's own shape), or undefined without a
 * cursor. A cursor that is not one of this list's is a 400.
 */
export function decodeCursor<K>(cursor: string | undefined, isKey: (value: unknown) => value is K): K | undefined {
  if (cursor === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!isKey(value)) throw badCursor();
  return value;
}

/** The largest id a row can have: PostgreSQL's ids are `integer` (int4), SQLite's never reach it. */
export const MAX_ID = 2_147_483_647;

/**
 * Key checks for the common sort keys. An id past MAX_ID is no id a list wrote, and PostgreSQL would
 * refuse to compare an integer column with it (an error, not an empty page).
 */
export const isIdKey = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_ID;
export const isNameIdKey = (value: unknown): value is [string, number] =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && isIdKey(value[1]);

export const isCountIdKey = (value: unknown): value is [number, number] =>
  Array.isArray(value) && value.length === 2 && Number.isInteger(value[0]) && value[0] >= 0 && value[0] <= MAX_ID && isIdKey(value[1]);

/**
 * A page from `rows`, read with a limit of `limit + 1`: the first `limit` rows, and a cursor after
 * the last of them when there was one more.
 */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => unknown): ListAnswer<T> {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(keyOf(items[items.length - 1]!)) };
}

/** The request's own URL with `cursor` set to the next page's. */
function nextUrl(request: FastifyRequest, cursor: string): string {
  const url = new URL(request.url, 'http://host');
  url.searchParams.set('cursor', cursor);
  return `${url.pathname}${url.search}`;
}

/**
 * Sends a page, with `Link: <…>; rel="next"` (RFC 8288) when there is a next page. The body is
 * serialised here: list pages are the largest answers, and JSON.stringify is faster on them than a
 * response schema's serialiser.
 */
export function sendList<T>(request: FastifyRequest, reply: FastifyReply, page: ListAnswer<T>): FastifyReply {
  return sendListBody(request, reply, JSON.stringify(page), page.nextCursor);
}

/** The Link header of a page whose next page starts at `cursor`. */
export const nextLink = (request: FastifyRequest, cursor: string): string => `<${nextUrl(request, cursor)}>; rel="next"`;

/**
 * Sends a page already serialised (a list that keeps its pages as bytes) with its Link header, which
 * such a list may keep too (`link`, as nextLink made it for this request's URL).
 */
export function sendListBody(request: FastifyRequest, reply: FastifyReply, body: string | Buffer, nextCursor: string | null, link?: string): FastifyReply {
  if (nextCursor !== null) void reply.header('link', link ?? nextLink(request, nextCursor));
  return reply.type('application/json; charset=utf-8').send(body);
}
