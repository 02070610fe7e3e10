// Answers kept while the database stays as it was when they were read (Db.changeStamp), so a busy read
// route costs a map lookup instead of its queries. Any change anywhere drops them all: simple and
// never stale, and a database that is being written to just runs the queries.

export class StampedCache<V> {
  private readonly entries = new Map<string, V>();
  /** The change stamp every entry was read at; stamps only go up. */
  private entriesStamp: number | undefined;

  constructor(private readonly maxEntries: number) {}

  /**
   * The value kept for `key`, if the database has not changed since. `stamp` is Db.changeStamp() taken
   * before this request read anything; undefined (a database that cannot tell now) finds nothing.
   */
  get(stamp: number | undefined, key: string): V | undefined {
    if (stamp === undefined) return undefined;
    if (this.entriesStamp === undefined || stamp > this.entriesStamp) {
      this.entries.clear();
      this.entriesStamp = stamp;
    }
    // A request that began before the latest change finds nothing, and leaves the newer entries be.
    return stamp === this.entriesStamp ? this.entries.get(key) : undefined;
  }

  /**
   * Keeps a value read after get() with the same stamp. Nothing is kept if the database changed in
   * the meantime (another get() saw a newer stamp) or cannot tell its changes.
   */
  set(stamp: number | undefined, key: string, value: V): void {
    if (stamp === undefined || stamp !== this.entriesStamp) return;
    // Oldest first out: a flood of distinct keys costs lookups, never memory.
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }
}
