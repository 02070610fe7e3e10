// The one error the Supervisely reader throws: where in the input it went wrong, and why.

/** Invalid Supervisely input. `path` locates the value (`objects[3].points.exterior`, '' for the root). */
export class SuperviselyFormatError extends Error {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(path ? `${path}: ${reason}` : reason);
    this.name = 'SuperviselyFormatError';
    this.path = path;
    this.reason = reason;
  }
}

export const childPath = (base: string, key: string | number): string =>
  typeof key === 'number' ? `${base}[${key}]` : base ? `${base}.${key}` : key;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
