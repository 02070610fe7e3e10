// Request validation. Query strings and path parameters arrive as text, so they are coerced to the
// schema's types; JSON bodies are not (a string where a number belongs is a 400, as the contract asks).
// Unknown body members are rejected, never stripped. No text value may hold a NUL character:
// PostgreSQL cannot store one, and SQLite refuses it too so that both databases answer alike.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';

const shared = { allErrors: false, strict: false, useDefaults: true, removeAdditional: false } as const;

/**
 * Where the first string holding a NUL character is, as Ajv names a place (`/files/3/path`), or null.
 * The place is written only once one is found: a body of a thousand polygons holds tens of thousands
 * of coordinates, and a path string made for each cost more than the rest of the check.
 */
function nulPath(value: unknown): string | null {
  if (typeof value === 'string') return value.includes('\0') ? '' : null;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      if (typeof item !== 'object' || item === null) {
        if (typeof item === 'string' && item.includes('\0')) return `/${index}`;
        continue;
      }
      // A list of numbers (a point) holds no string: passed over without descending into it.
      if (Array.isArray(item) && item.every(isNumber)) continue;
      const found = nulPath(item);
      if (found !== null) return `/${index}${found}`;
    }
    return null;
  }
  // What is validated (parsed JSON, a query, headers) has own members only: `in` walks what
  // Object.keys would, without making the list.
  for (const key in value) {
    const found = nulPath((value as Record<string, unknown>)[key]);
    if (found !== null) return `/${key}${found}`;
  }
  return null;
}

const isNumber = (value: unknown): boolean => typeof value === 'number';

/**
 * The schema's validator, then the NUL check over what passed it (a value of the schema's shape, so
 * of bounded depth). It reports as Ajv does, so the error handler words both alike.
 */
function refusingNul(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    if (!validate(data, context)) {
      checked.errors = validate.errors;
      return false;
    }
    const path = nulPath(data);
    if (path === null) return true;
    const error: ErrorObject = { instancePath: path, schemaPath: '', keyword: 'nul', params: {}, message: 'must not contain the NUL character' };
    checked.errors = [error];
    return false;
  }) as ValidateFunction;
  // Fastify hands a validator with a schema environment the request, so that defaults reach the root.
  Object.assign(checked, { schema: validate.schema, schemaEnv: validate.schemaEnv });
  return checked;
}

/** An id in a path: a plain decimal integer, one spelling per resource (no sign, leading zero, exponent, hex or spaces). */
const PATH_ID = /^[1-9][0-9]*$/;

/** The members of a path parameters schema that are integers (the ids). */
function integerParams(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(properties).filter((name) => properties[name]!.type === 'integer');
}

/**
 * Path parameters: each id as the path spells it must be a plain decimal integer before it is coerced.
 * Coercion alone reads `0x1`, `01`, `+1`, `1e3` and `1 ` as 1: one resource under many URLs, which
 * caches and the audit trail would count apart.
 */
function plainPathIds(validate: ValidateFunction, ids: readonly string[]): ValidateFunction {
  if (ids.length === 0) return validate;
  const checked = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const params = data as Record<string, unknown>;
    const bad = ids.find((name) => typeof params[name] === 'string' && !PATH_ID.test(params[name]));
    if (bad === undefined) {
      const valid = validate(data, context);
      checked.errors = validate.errors;
      return valid;
    }
    const message = 'must be a plain decimal integer from 1 (no sign, leading zero, exponent or spaces)';
    checked.errors = [{ instancePath: `/${bad}`, schemaPath: '', keyword: 'pathId', params: {}, message } satisfies ErrorObject];
    return false;
  }) as ValidateFunction;
  Object.assign(checked, { schema: validate.schema, schemaEnv: validate.schemaEnv });
  return checked;
}

export function registerValidation(app: FastifyInstance): void {
  const strictAjv = new Ajv({ ...shared, coerceTypes: false });
  const coercingAjv = new Ajv({ ...shared, coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return refusingNul(strictAjv.compile(schema));
    const validate = refusingNul(coercingAjv.compile(schema));
    return httpPart === 'params' ? plainPathIds(validate, integerParams(schema)) : validate;
  });
}
