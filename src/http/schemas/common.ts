// Schemas shared by the v1 routes: ids, paging, error body, the `{success: true}` answer.
import { Type, type Static } from 'typebox';

/** Ids are positive 32-bit integers; anything else is a 400 before a handler runs. */
export const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

/** An integer-array query parameter (`id=1&id=2`, `id[]=1&id[]=2` or `id=1,2`). */
export const IdList = Type.Array(Id, { maxItems: 1000 });

export const Timestamp = Type.String({ description: 'ISO 8601 UTC with milliseconds, e.g. 2026-11-22T09:30:00.000Z' });

export const SizeString = Type.String({ pattern: '^[0-9]+$', description: 'bytes, as a decimal string' });

export const Page = Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1 });
export const PerPage = Type.Integer({ minimum: 1, maximum: 1000, default: 1000 });

export const PagingQuery = {
  page: Type.Optional(Page),
  perPage: Type.Optional(PerPage),
};

export const Success = Type.Object({ success: Type.Literal(true) });
export const SUCCESS = { success: true } as const;

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'one of the codes of the error catalogue' }),
    details: Type.Object({ message: Type.String() }, { additionalProperties: true }),
  },
  { $id: 'ErrorBody' },
);

export const Title = Type.String({ minLength: 1, maxLength: 255 });

export const TagScope = Type.Union([Type.Literal('images'), Type.Literal('figures')]);
export type TagScope = Static<typeof TagScope>;

/** Paging in SQL terms. */
export function toOffset(page: number | undefined, perPage: number | undefined): { limit: number; offset: number } {
  const limit = perPage ?? 1000;
  return { limit, offset: ((page ?? 1) - 1) * limit };
}

/** Error responses every route shares, for the OpenAPI document. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
};
