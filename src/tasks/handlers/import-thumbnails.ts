// The grid thumbnails of an import's images, made while the import goes on (two at a time, beside its
// batches) rather than by a task queued once it has ended: a gallery opened when the import finishes
// finds them made, where it showed grey tiles for seconds at its bottom. The import waits for the last
// of them when few are left; a large import whose thumbnails lag far behind leaves the rest to the
// thumbnails task it queues at its end (which skips what is made).
import type { Context } from '../../context.ts';
import { GRID_THUMBNAIL_SIZE } from '../../services/thumbnails.service.ts';

const AT_ONCE = 2;
/** Hashes waiting at most; past this the import's own thumbnails task makes them. */
const QUEUED_MAX = 50_000;
/** The import waits for this many thumbnails still to make at its end, at most. */
const WAIT_MAX = 2_000;

export class ThumbnailsAlongside {
  private readonly queue: string[] = [];
  private readonly seen = new Set<string>();
  private workers: Promise<void>[] = [];
  private stopped = false;

  constructor(private readonly ctx: Context) {}

  /** Images just committed: their thumbnails are made next. */
  add(hashes: Iterable<string>): void {
    for (const hash of hashes) {
      if (this.seen.has(hash) || this.queue.length >= QUEUED_MAX) continue;
      this.seen.add(hash);
      this.queue.push(hash);
    }
    while (!this.stopped && this.workers.length < AT_ONCE && this.queue.length > 0) {
      const worker: Promise<void> = this.work().finally(() => {
        this.workers = this.workers.filter((w) => w !== worker);
      });
      this.workers.push(worker);
    }
  }

  /** Waits for what is left when it is little; else stops, leaving it to the thumbnails task. */
  async finish(): Promise<void> {
    if (this.queue.length > WAIT_MAX) this.stopped = true;
    await this.stop(false);
  }

  /** Stops making any more (the import failed or was stopped); the one being made ends first. */
  async stop(now = true): Promise<void> {
    if (now) this.stopped = true;
    while (this.workers.length > 0) await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    for (let hash = this.queue.shift(); hash !== undefined && !this.stopped; hash = this.queue.shift()) {
      // One that cannot be made (bytes that do not decode) is made again, and fails, on request.
      await this.ctx.thumbnails.make(hash, GRID_THUMBNAIL_SIZE).catch(() => undefined);
    }
  }
}
