// The warnings a reading keeps: the first KEPT_WARNINGS, and a count of the rest. A file can give a
// warning per element (a COCO file of 200,000 annotations on unknown images gives 200,000), and what
// a user reads is the first ones and how many more there were; keeping them all would grow with the
// file, and passing them on as spread arguments (`push(...list)`) overflows the stack.

/** Warnings kept in full by a reading, and in the import task's `meta.warnings`. */
export const KEPT_WARNINGS = 100;

export class KeptWarnings<W> {
  readonly list: W[] = [];
  /** Warnings given beyond the kept ones. */
  more = 0;

  constructor(private readonly limit = KEPT_WARNINGS) {}

  push(warning: W): void {
    if (this.list.length < this.limit) this.list.push(warning);
    else this.more += 1;
  }

  /** Adds `warnings` one by one, and `more` given beyond them. */
  addAll(warnings: readonly W[], more = 0): void {
    for (const w of warnings) this.push(w);
    this.more += more;
  }

  /** Every warning given, kept or not. */
  get total(): number {
    return this.list.length + this.more;
  }
}
