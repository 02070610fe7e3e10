// The lists sorted by id: their cursor is the id of the last item sent.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Page, PageRequest } from '../../services/paging.ts';
import { ListQuery } from '../schemas/v2.ts';
import { decodeCursor, encodeCursor, isIdKey, sendList } from './cursor.ts';

/** The page a list query asks for: where it starts, its size and whether to count the whole list. */
export function pageRequestOf(query: { limit?: number; cursor?: string; count?: boolean }): PageRequest {
  return {
    afterId: decodeCursor(query.cursor, isIdKey),
    // Validation fills the schema's default in; read from the schema so the two cannot differ.
    limit: query.limit ?? (ListQuery.limit as unknown as { default: number }).default,
    total: query.count ?? false,
  };
}

/** Sends a page of a list sorted by id, with its next cursor and, while there is one, a Link to it. */
export function sendPage<T>(request: FastifyRequest, reply: FastifyReply, page: Page<T>): FastifyReply {
  const nextCursor = page.nextAfterId === null ? null : encodeCursor(page.nextAfterId);
  return sendList(request, reply, { items: page.items, nextCursor, ...(page.total !== undefined ? { total: page.total } : {}) });
}
