// Settings a layer's schema has no place for, said in words. A config written for the 2018 engine may
// use a condition or an option we do not implement; the schema then only says "boolean schema is
// false" at the member, which tells a user nothing. Members that no form of the settings declares
// (through unions, objects and lists) are named instead: "condition sum_object_area is not supported".
import type { TSchema } from 'typebox';

/** Whether some branch of the schema declares the member at `path`. */
function declares(schema: TSchema, path: string[]): boolean {
  const node = schema as { anyOf?: TSchema[]; properties?: Record<string, TSchema>; items?: TSchema };
  if (node.anyOf) return node.anyOf.some((branch) => declares(branch, path));
  if (path.length === 0) return true;
  const [head, ...rest] = path as [string, ...string[]];
  if (node.properties && Object.hasOwn(node.properties, head)) return declares(node.properties[head]!, rest);
  if (node.items && /^\d+$/.test(head)) return declares(node.items, rest);
  return false;
}

const unescape = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');
const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The members of the settings that no form of the schema has, from the schema's errors: a message
 * naming them and the pointer (within the settings) of the first. Null when there are none.
 */
export function unsupportedMembers(schema: TSchema, errors: { instancePath: string; keyword: string }[]): { message: string; at: string } | null {
  const unknown = [...new Set(errors.filter((e) => e.keyword === 'boolean').map((e) => e.instancePath))]
    .map((p) => p.split('/').slice(1).map(unescape))
    .filter((path) => !declares(schema, path));
  if (unknown.length === 0) return null;
  // The deepest object with unknown members: name them all (a 2018 condition may bring two).
  const parent = unknown.reduce((deepest, path) => (path.length > deepest.length ? path : deepest)).slice(0, -1);
  const keys = unknown.filter((path) => path.length === parent.length + 1 && parent.every((s, i) => path[i] === s)).map((path) => path[path.length - 1]!);
  const where = parent.length === 0 ? 'setting' : parent.filter((s) => !/^\d+$/.test(s)).join('.');
  return {
    message: keys.length === 1 ? `${where} ${keys[0]} is not supported` : `${where} ${keys.slice(0, -1).join(', ')} and ${keys[keys.length - 1]} are not supported`,
    at: [...parent, keys[0]!].map((s) => `/${escape(s)}`).join(''),
  };
}
