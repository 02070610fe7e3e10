// Request validation. Query strings and path parameters arrive as text, so they are coerced to the
// schema's types; JSON bodies are not (a string where a number belongs is a 400, as the contract asks).
// Unknown body members are rejected, never stripped.
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';

const shared = { allErrors: false, strict: false, useDefaults: true, removeAdditional: false } as const;

export function registerValidation(app: FastifyInstance): void {
  const strictAjv = new Ajv({ ...shared, coerceTypes: false });
  const coercingAjv = new Ajv({ ...shared, coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strictAjv.compile(schema) : coercingAjv.compile(schema),
  );
}
