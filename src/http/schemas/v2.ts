// Schemas shared by the v2 routes: problem details, list queries and list answers.
import { Type, type Static, type TSchema } from 'typebox';

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'urn:annostore:problem:<code>, one per catalogue entry (docs/api-v2.md)' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'the catalogue code, e.g. NOT_FOUND' }),
    errors: Type.Optional(
      Type.Array(Type.Object({ pointer: Type.String({ description: 'RFC 6901 pointer into the request part named by `in`' }), detail: Type.String() })),
    ),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

/** Error answers every authenticated route may give, for the OpenAPI document (429: the key's rate limits). */
export const problemResponses = {
  400: Problem,
  401: Problem,
  403: Problem,
  404: Problem,
  429: Problem,
};

/** The largest page a list answers. */
export const MAX_LIMIT = 1000;

/**
 * The longest cursor taken. The longest a list writes is a `sort=name` cursor of a name of 1024 code
 * points of 4 UTF-8 bytes each: about 5.5k base64url characters. A query string is not a route
 * parameter (maxParamLength does not apply); what bounds it is Node's 16 KiB for the request line and
 * headers together, so a cursor of this length still leaves room for the rest of the request.
 */
export const MAX_CURSOR_LENGTH = 8192;

/** Query members every list takes. */
export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 100, description: 'items per page' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: 'the nextCursor of the page before' })),
  count: Type.Optional(Type.Boolean({ description: 'also answer `total`, the number of items across all pages' })),
};

export interface ListAnswer<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}

/** A page of a list: its items, the cursor of the next page (null on the last), the total if asked. */
export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `cursor` for the next page; null on the last page' }),
    total: Type.Optional(Type.Integer({ minimum: 0 })),
  });

export type ListQueryT = Static<ReturnType<typeof Type.Object<typeof ListQuery>>>;

/** An id path parameter. */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

/** The If-Match header, for the OpenAPI document (its value is read by ifMatchOf). */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ maxLength: 2048, description: 'the ETag the change is based on; 412 when the resource has changed' })),
});

/** The Idempotency-Key header every POST takes. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'a retried create with the same key answers the first answer' })),
});
