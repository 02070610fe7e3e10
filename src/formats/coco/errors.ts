// The error the COCO reader throws for a file it cannot read at all.

/** Invalid COCO input. `path` is the file, `at` the place inside it ('' for the whole document). */
export class CocoFormatError extends Error {
  readonly path: string;
  readonly at: string;

  constructor(path: string, at: string, reason: string) {
    super(at ? `${path}: ${at}: ${reason}` : `${path}: ${reason}`);
    this.name = 'CocoFormatError';
    this.path = path;
    this.at = at;
  }
}
