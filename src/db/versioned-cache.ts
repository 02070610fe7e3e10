// Answers kept with the version of the database they were read at: an entry is used only by a request
// that finds the database at that same version, so it is never stale. Unlike StampedCache, whose stamp
// is known before anything is read, a version may be learnt only with the answer itself (PostgreSQL's
// snapshot comes back with the rows), so entries are checked one by one instead of dropped together.

export interface Versioned<V> {
  version: string;
  value: V;
}

export class VersionedCache<V> {
  private readonly entries = new Map<string, Versioned<V> & { bytes: number }>();
  private bytes = 0;

  /** `maxBytes` bounds what the caller says its values weigh; `maxEntries` bounds the count. */
  constructor(private readonly limits: { maxEntries: number; maxBytes: number }) {}

  /** The entry for `key` whatever its version, for a caller that learns the current version later. */
  peek(key: string): Versioned<V> | undefined {
    return this.entries.get(key);
  }

  /** The value kept for `key` if it was read at `version`. */
  get(key: string, version: string | undefined): V | undefined {
    const entry = this.entries.get(key);
    return entry && version !== undefined && entry.version === version ? entry.value : undefined;
  }

  /** Keeps `value`, read at `version`, in place of what `key` held. Too heavy a value is not kept. */
  set(key: string, version: string, value: V, bytes = 0): void {
    this.delete(key);
    if (bytes > this.limits.maxBytes) return;
    // Oldest first out: a flood of distinct keys costs lookups, never memory.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.limits.maxEntries && this.bytes + bytes <= this.limits.maxBytes) break;
      this.delete(oldest);
    }
    this.entries.set(key, { version, value, bytes });
    this.bytes += bytes;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}
