// Bounded concurrency for work over many items (file reads and writes, uploads).

/**
 * `fn` over `items` with at most `limit` calls running at once; answers the results in the order of
 * `items`. Once a call fails no new one starts, and the first failure rejects.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** At most `limit` calls of `run` at once, across all its callers; the others wait their turn in order. */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.free = limit;
  }

  async run<R>(fn: () => Promise<R>): Promise<R> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next in line, or is free again.
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}
