// The images a filter finds, loaded a page at a time as they are needed (keyset pages: a page far down
// the list needs the ones before it). The gallery and the image view share the last list, so stepping
// to the next image after the gallery costs no request.
import { type Image, type ImageFilter, listImages } from './api.ts';
import { filterKey } from './filters.ts';

const PAGE = 500;

export class ImageList {
  readonly items: Image[] = [];
  total: number | null = null;
  private cursor: string | undefined;
  private done = false;
  private loading: Promise<void> | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(readonly filter: ImageFilter) {}

  get complete(): boolean {
    return this.done;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Loads pages until at least `count` items are here or the list ends. */
  async loadUntil(count: number): Promise<void> {
    while (!this.done && this.items.length < count) {
      this.loading ??= this.loadPage().finally(() => (this.loading = null));
      await this.loading;
    }
  }

  /** The position of the image in the list, loading as far as needed; -1 when the filter does not find it. */
  async indexOf(id: number): Promise<number> {
    for (;;) {
      const at = this.items.findIndex((image) => image.id === id);
      if (at >= 0 || this.done) return at;
      await this.loadUntil(this.items.length + PAGE);
    }
  }

  private async loadPage(): Promise<void> {
    const page = await listImages(this.filter, { limit: PAGE, cursor: this.cursor, count: this.total === null });
    this.items.push(...page.items);
    if (page.total !== undefined) this.total = page.total;
    this.cursor = page.nextCursor ?? undefined;
    this.done = page.nextCursor === null;
    if (this.done) this.total = this.items.length;
    for (const listener of this.listeners) listener();
  }
}

let last: ImageList | null = null;

/** The list of the filter: the last one asked for when it is the same filter, else a new one. */
export function imageListOf(filter: ImageFilter): ImageList {
  if (!last || filterKey(last.filter) !== filterKey(filter)) last = new ImageList(filter);
  return last;
}

/** The project of an image found in the kept list (the gallery just shown), if it is there. */
export function knownProjectOf(imageId: number): number | undefined {
  return last?.items.find((image) => image.id === imageId)?.projectId;
}

/** Forgets the kept list, after a change to the images (a batch delete or tag): the next ask reads anew. */
export function forgetImageLists(): void {
  last = null;
}
