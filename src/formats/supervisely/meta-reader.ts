// Reads a Supervisely project meta: the 2018 meta.json, the newer one, or an older bare classes.json.
import {
  type ClassDefinition,
  type TagDefinition,
  type TagScope,
  type TagValueType,
  TAG_VALUE_TYPES,
  CLASS_SHAPES,
  isClassShape,
} from '../canonical.ts';
import { classColorSource } from '../class-colors.ts';
import { SuperviselyFormatError, childPath, isRecord, typeName } from './errors.ts';

/** A class whose shape we cannot store; the caller decides whether that fails the import. */
export interface UnsupportedClass {
  title: string;
  shape: string;
  path: string;
  message: string;
}

export interface ProjectMeta {
  classes: ClassDefinition[];
  tags: TagDefinition[];
  unsupported: UnsupportedClass[];
}

const COLOR = /^#[0-9A-Fa-f]{6}$/;

const APPLICABLE_SCOPES: Record<string, TagScope[]> = {
  all: ['images', 'figures'],
  imagesOnly: ['images'],
  objectsOnly: ['figures'],
};

/**
 * Parses meta.json (2018 or newer) or a bare class list. Classes of a shape we do not support land in
 * `unsupported` instead of failing; anything malformed throws SuperviselyFormatError.
 */
export function parseProjectMeta(json: unknown): ProjectMeta {
  if (Array.isArray(json)) return { ...readClasses(json, 'classes'), tags: [] };
  if (!isRecord(json)) throw new SuperviselyFormatError('', `meta must be an object or a class list, got ${typeName(json)}`);
  if (!Array.isArray(json.classes)) {
    throw new SuperviselyFormatError('classes', `must be an array, got ${typeName(json.classes)}`);
  }
  const { classes, unsupported } = readClasses(json.classes, 'classes');
  const tags: TagDefinition[] = [];
  // A file may in principle carry both generations of tag lists; each adds to the same set.
  if (json.tags !== undefined) tags.push(...readTags(json.tags));
  if (json.tags_images !== undefined) tags.push(...readTagNames(json.tags_images, 'tags_images', 'images'));
  if (json.tags_objects !== undefined) tags.push(...readTagNames(json.tags_objects, 'tags_objects', 'figures'));
  const seen = new Set<string>();
  for (const tag of tags) {
    const key = `${tag.scope}\u0000${tag.title}`;
    if (seen.has(key)) throw new SuperviselyFormatError('tags', `tag "${tag.title}" is declared twice for ${tag.scope}`);
    seen.add(key);
  }
  return { classes, tags, unsupported };
}

function readClasses(list: unknown[], path: string): Omit<ProjectMeta, 'tags'> {
  const classes: ClassDefinition[] = [];
  const unsupported: UnsupportedClass[] = [];
  const seen = new Map<string, string>();
  list.forEach((raw, i) => {
    const at = childPath(path, i);
    if (!isRecord(raw)) throw new SuperviselyFormatError(at, `class must be an object, got ${typeName(raw)}`);
    const title = requireName(raw.title, childPath(at, 'title'));
    const first = seen.get(title);
    if (first !== undefined) {
      throw new SuperviselyFormatError(childPath(at, 'title'), `class "${title}" is already declared at ${first}`);
    }
    seen.set(title, at);
    const shape = raw.shape;
    if (typeof shape !== 'string' || shape === '') {
      throw new SuperviselyFormatError(childPath(at, 'shape'), `class "${title}" needs a shape name, got ${typeName(shape)}`);
    }
    if (!isClassShape(shape)) {
      unsupported.push({
        title,
        shape,
        path: childPath(at, 'shape'),
        message: `class "${title}" has shape "${shape}", which is not supported (supported: ${CLASS_SHAPES.join(', ')})`,
      });
      return;
    }
    classes.push({ title, shape, color: readColor(raw.color, childPath(at, 'color')) });
  });
  // A class without a colour takes the palette's next one, apart from those the meta gives.
  const nextColor = classColorSource(classes.flatMap((c) => (c.color ? [c.color] : [])));
  for (const c of classes) if (!c.color) c.color = nextColor();
  return { classes, unsupported };
}

/** The class's colour, or '' when the meta gives none. */
function readColor(raw: unknown, at: string): string {
  if (raw === undefined || raw === null || raw === '') return '';
  if (typeof raw === 'string' && COLOR.test(raw)) return raw;
  throw new SuperviselyFormatError(at, `must be a #RRGGBB colour, got ${JSON.stringify(raw)}`);
}

function readTags(raw: unknown): TagDefinition[] {
  if (!Array.isArray(raw)) throw new SuperviselyFormatError('tags', `must be an array, got ${typeName(raw)}`);
  return raw.flatMap((tag, i) => {
    const at = childPath('tags', i);
    if (!isRecord(tag)) throw new SuperviselyFormatError(at, `tag must be an object, got ${typeName(tag)}`);
    const title = requireName(tag.name, childPath(at, 'name'));
    const valueType = tag.value_type ?? 'none';
    if (!(TAG_VALUE_TYPES as readonly unknown[]).includes(valueType)) {
      throw new SuperviselyFormatError(
        childPath(at, 'value_type'),
        `tag "${title}" has value_type ${JSON.stringify(valueType)}; expected one of ${TAG_VALUE_TYPES.join(', ')}`,
      );
    }
    const applicable = tag.applicable_type ?? 'all';
    const scopes = typeof applicable === 'string' ? APPLICABLE_SCOPES[applicable] : undefined;
    if (!scopes) {
      throw new SuperviselyFormatError(
        childPath(at, 'applicable_type'),
        `tag "${title}" has applicable_type ${JSON.stringify(applicable)}; expected all, imagesOnly or objectsOnly`,
      );
    }
    let values: string[] | undefined;
    if (tag.values !== undefined && tag.values !== null) {
      if (!Array.isArray(tag.values) || !tag.values.every((v) => typeof v === 'string')) {
        throw new SuperviselyFormatError(childPath(at, 'values'), `tag "${title}" values must be a list of strings`);
      }
      values = tag.values as string[];
    }
    return scopes.map((scope): TagDefinition => ({
      title,
      scope,
      valueType: valueType as TagValueType,
      ...(values ? { values: [...values] } : {}),
    }));
  });
}

function readTagNames(raw: unknown, path: string, scope: TagScope): TagDefinition[] {
  if (!Array.isArray(raw)) throw new SuperviselyFormatError(path, `must be an array of tag names, got ${typeName(raw)}`);
  return raw.map((name, i) => ({ title: requireName(name, childPath(path, i)), scope, valueType: 'none' }));
}

function requireName(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new SuperviselyFormatError(path, `must be a non-empty string, got ${typeName(value)}`);
  }
  return value;
}

/**
 * The colour given to a class that has none: a hue from an FNV-1a hash of the title, so the same
 * title gets the same colour in every import.
 */
export function defaultClassColor(title: string): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(title, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hslToHex(hash % 360, 0.65, 0.5);
}

function hslToHex(hue: number, saturation: number, lightness: number): string {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number): string => {
    const k = (n + hue / 30) % 12;
    const value = lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0')
      .toUpperCase();
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
