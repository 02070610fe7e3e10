// Request validation. Query strings and path parameters arrive as text, so they are coerced to the
// schema's types; JSON bodies are not (a string where a number belongs is a 400, as the contract asks).
// Unknown body members are rejected, never stripped. No text value may hold a NUL character:
// PostgreSQL cannot store one, and SQLite refuses it too so that both databases answer alike. Nor may
// objects and lists nest more than MAX_NESTING deep.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';

const shared = { allErrors: false, strict: false, useDefaults: true, removeAdditional: false } as const;

/**
 * How deep objects and lists may nest in what is validated. No request's shape comes near it (an
 * annotation is about six deep); members the schemas leave free (export options, a DTL layer's
 * settings) are held to it too, so that no walk over a request, here or later, runs out of stack.
 */
export const MAX_NESTING = 64;

interface Refusal {
  /** Where, as Ajv names a place (`/files/3/path`). */
  path: string;
  keyword: 'nul' | 'nesting';
}

/**
 * The first string holding a NUL character, or the first object or list nested deeper than
 * MAX_NESTING (`depth` counts the containers around `value`), or null. The place is written only
 * once one is found: a body of a thousand polygons holds tens of thousands of coordinates, and a path
 * string made for each cost more than the rest of the check.
 */
function refusal(value: unknown, depth = 0): Refusal | null {
  if (typeof value === 'string') return value.includes('\0') ? { path: '', keyword: 'nul' } : null;
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_NESTING) return { path: '', keyword: 'nesting' };
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      if (typeof item !== 'object' || item === null) {
        if (typeof item === 'string' && item.includes('\0')) return { path: `/${index}`, keyword: 'nul' };
        continue;
      }
      // A list of numbers (a point) holds no string: passed over without descending into it.
      if (Array.isArray(item) && depth + 1 < MAX_NESTING && item.every(isNumber)) continue;
      const found = refusal(item, depth + 1);
      if (found !== null) {
        found.path = `/${index}${found.path}`;
        return found;
      }
    }
    return null;
  }
  // What is validated (parsed JSON, a query, headers) has own members only: `in` walks what
  // Object.keys would, without making the list.
  for (const key in value) {
    const found = refusal((value as Record<string, unknown>)[key], depth + 1);
    if (found !== null) {
      found.path = `/${key}${found.path}`;
      return found;
    }
  }
  return null;
}

const MESSAGES: Record<Refusal['keyword'], string> = {
  nul: 'must not contain the NUL character',
  nesting: `must not nest objects and lists more than ${MAX_NESTING} deep`,
};

const isNumber = (value: unknown): boolean => typeof value === 'number';

/**
 * The schema's validator, then the NUL and nesting check over what passed it. It reports as Ajv
 * does, so the error handler words both alike.
 */
function refusingNulAndNesting(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    if (!validate(data, context)) {
      checked.errors = validate.errors;
      return false;
    }
    const found = refusal(data);
    if (found === null) return true;
    const error: ErrorObject = { instancePath: found.path, schemaPath: '', keyword: found.keyword, params: {}, message: MESSAGES[found.keyword] };
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
    if (httpPart === 'body') return refusingNulAndNesting(strictAjv.compile(schema));
    const validate = refusingNulAndNesting(coercingAjv.compile(schema));
    return httpPart === 'params' ? plainPathIds(validate, integerParams(schema)) : validate;
  });
}
