// Names of archive entries: a dataset or image name made safe as one path segment, and names kept
// apart within a folder.

/**
 * `name` as one path segment: slashes, backslashes and control characters become `_`, a name of
 * dots only (or none) is written with underscores, and so is the colon of a drive letter (`C:`), so
 * no segment climbs out, vanishes, or is read by an unzip tool on Windows as a path on another drive.
 */
export function pathSegment(name: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[/\\\u0000-\u001f]/g, '_').replace(/^([A-Za-z]):/, '$1_');
  return /^\.*$/.test(cleaned) ? cleaned.replace(/\./g, '_') || '_' : cleaned;
}

/** The name without its last extension (`a.tar.gz` → `a.tar`); a leading dot starts no extension. */
export function stemOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

const extensionOf = (name: string): string => name.slice(stemOf(name).length);

/**
 * The file names of one folder. A name whose key is taken gets `_1`, `_2`… before its extension,
 * the first that is free: deterministic for a given order of names. Keys ignore case, as the file
 * systems of Windows and macOS do when the archive is unpacked; by `stem`, `a.jpg` and `a.png` are
 * kept apart too, for formats whose other files are named after the image's stem (YOLO labels,
 * VOC annotations, masks).
 */
export class UniqueNames {
  private readonly taken = new Set<string>();

  constructor(private readonly by: 'name' | 'stem') {}

  /** The name to write for `name` (itself when free), now taken. */
  claim(name: string): string {
    const stem = stemOf(name);
    const extension = extensionOf(name);
    const key = (s: string) => (this.by === 'stem' ? s : s + extension).toLowerCase();
    let chosen = stem;
    for (let n = 1; this.taken.has(key(chosen)); n++) chosen = `${stem}_${n}`;
    this.taken.add(key(chosen));
    return chosen + extension;
  }
}
