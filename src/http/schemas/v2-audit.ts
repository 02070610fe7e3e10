// Schemas of API v2's audit trail (GET /v2/audit).
import { Type } from 'typebox';
import { Id, Timestamp } from './common.ts';
import { ListQuery } from './v2.ts';

export const AUDITED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const AuditItem = Type.Object({
  id: Type.Integer(),
  at: Timestamp,
  userId: Type.Integer(),
  keyId: Type.Integer(),
  keyPrefix: Type.String({ description: 'the public prefix of the key (as GET /v2/keys shows it), never the key' }),
  method: Type.Enum([...AUDITED_METHODS]),
  route: Type.String({ description: 'the route pattern, e.g. /v2/images/:id' }),
  params: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'the path parameters (ids) of the request' }),
  status: Type.Integer({ description: 'the status of the answer; failed writes are recorded too' }),
  requestId: Type.String({ description: 'the x-request-id of the request (also in the request log)' }),
  durationMs: Type.Integer({ minimum: 0 }),
});

/** An ISO 8601 date and time with its offset, e.g. 2026-11-25T09:30:00Z. */
const Instant = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$', maxLength: 40, description });

export const AuditListQuery = Type.Object({
  ...ListQuery,
  since: Type.Optional(Instant('only writes at or after this time (ISO 8601 with offset)')),
  until: Type.Optional(Instant('only writes before this time (ISO 8601 with offset)')),
  keyId: Type.Optional(Id),
  method: Type.Optional(Type.Enum([...AUDITED_METHODS])),
  status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'only writes answered with this status' })),
});
