// The contract accepts an integer-array query parameter three ways: `id=1&id=2`, `id[]=1&id[]=2` and
// `id=1,2`. The query parser folds `id[]` into `id`; this hook splits commas for the parameters a
// route's schema declares as arrays, before validation coerces the items to integers.
import type { FastifyInstance } from 'fastify';

interface QuerySchema {
  properties?: Record<string, { type?: string }>;
}

function arrayParams(schema: unknown): string[] {
  const properties = (schema as QuerySchema | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, value]) => value.type === 'array')
    .map(([name]) => name);
}

/** Parses a query string into an object without a prototype, folding `key[]` into `key`. */
export function parseQuery(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [rawKey, value] of new URLSearchParams(raw)) {
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
    const existing = out[key];
    if (existing === undefined) out[key] = rawKey.endsWith('[]') ? [value] : value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[key] = [existing, value];
  }
  return out;
}

export function registerArrayQuery(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const names = arrayParams(route.schema?.querystring);
    if (names.length === 0) return;
    const split = async (request: { query: unknown }) => {
      const query = request.query as Record<string, string | string[] | undefined>;
      for (const name of names) {
        const value = query[name];
        if (value === undefined) continue;
        const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(','));
        query[name] = parts.filter((part) => part !== '');
      }
    };
    const existing = route.preValidation;
    route.preValidation = existing ? [...(Array.isArray(existing) ? existing : [existing]), split] : [split];
  });
}
