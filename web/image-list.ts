// The images a filter finds, loaded a page at a time where they are needed: a page follows the one
// before it by its cursor when that one is here, and is asked for by its position (`offset`) when the
// grid jumped there, so a jump to the middle of a million images costs one request, not the 2,500
// pages before it. Pages no longer in view are aborted before their answer. The gallery and the image
// view share the last list, so stepping to the next image after the gallery costs no request.
import { type Image, type ImageFilter, listImages } from './api.ts';
import { filterKey } from './filters.ts';

export const PAGE = 200;
/** Pages asked for at once (the browser's six connections are shared with the thumbnails). */
const AT_ONCE = 2;
/** A scrollbar dragged along asks for where it is at most this often (and aborts what it left). */
const SETTLE_MS = 60;

interface PageState {
  /** Where the page after it starts, once this one is here (null: the list ends here). */
  next?: string | null;
  loading?: AbortController;
  done?: Promise<void>;
}

export class ImageList {
  /** Sparse: the images of the pages loaded, at their positions. */
  readonly items: Image[] = [];
  total: number | null = null;
  private readonly pages = new Map<number, PageState>();
  private wanted: { first: number; last: number } = { first: 0, last: 0 };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(readonly filter: ImageFilter) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** The grid shows positions `from` to `to` (exclusive): their pages are loaded, and no others. */
  show(from: number, to: number): void {
    this.wanted = { first: Math.floor(from / PAGE), last: Math.floor(Math.max(from, to - 1) / PAGE) };
    for (const [index, page] of this.pages) {
      if (page.loading && (index < this.wanted.first || index > this.wanted.last)) {
        page.loading.abort();
        this.pages.delete(index);
      }
    }
    // At most one wait pending: a scroll goes on asking every frame, and must not put it off forever.
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, SETTLE_MS);
  }

  /** Loads pages until at least `count` items are here from the start, or the list ends. */
  async loadUntil(count: number): Promise<void> {
    for (let index = 0; index * PAGE < count; index += 1) {
      await this.load(index);
      if (this.total !== null && (index + 1) * PAGE >= this.total) return;
    }
  }

  /** Loads the pages of the images beside position `index` (the image view's previous and next). */
  async loadAround(index: number): Promise<void> {
    await Promise.all([index - 1, index + 1].filter((i) => i >= 0 && (this.total === null || i < this.total)).map((i) => this.load(Math.floor(i / PAGE))));
  }

  /** The position of the image in the list, reading it from the start as far as needed; -1 when not found. */
  async indexOf(id: number): Promise<number> {
    const known = this.items.findIndex((image) => image?.id === id);
    if (known >= 0) return known;
    for (let index = 0; ; index += 1) {
      await this.load(index);
      const at = this.items.findIndex((image, i) => i >= index * PAGE && image?.id === id);
      if (at >= 0) return at;
      if (this.pages.get(index)?.next === null || this.total === null || (index + 1) * PAGE >= this.total) return -1;
    }
  }

  private pagesLoading(): number {
    let n = 0;
    for (const page of this.pages.values()) if (page.loading) n += 1;
    return n;
  }

  /** Starts the wanted pages not here yet, the first ones first, a few at a time. */
  private pump(): void {
    for (let index = this.wanted.first; index <= this.wanted.last && this.pagesLoading() < AT_ONCE; index += 1) {
      if (!this.pages.has(index)) void this.load(index).then(() => this.pump(), () => undefined);
    }
  }

  private load(index: number): Promise<void> {
    const known = this.pages.get(index);
    if (known?.done) return known.done;
    const loading = new AbortController();
    const state: PageState = { loading };
    const before = this.pages.get(index - 1)?.next;
    // The first page counts the list; a page is read after its predecessor's cursor when known.
    const options = index === 0 ? { limit: PAGE, count: true } : before ? { limit: PAGE, cursor: before, count: this.total === null } : { limit: PAGE, offset: index * PAGE, count: this.total === null };
    state.done = listImages(this.filter, options, loading.signal).then(
      (page) => {
        for (let i = 0; i < page.items.length; i += 1) this.items[index * PAGE + i] = page.items[i]!;
        if (page.total !== undefined) this.total = page.total;
        // A page past the end (asked by position) is empty and says nothing of where the end is.
        if (page.nextCursor === null && (page.items.length > 0 || index === 0)) this.total = index * PAGE + page.items.length;
        state.next = page.nextCursor;
        delete state.loading;
        for (const listener of this.listeners) listener();
      },
      (failure: unknown) => {
        if (this.pages.get(index) === state) this.pages.delete(index);
        throw failure;
      },
    );
    this.pages.set(index, state);
    return state.done;
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
  return last?.items.find((image) => image?.id === imageId)?.projectId;
}

/** Forgets the kept list, after a change to the images (a batch delete or tag): the next ask reads anew. */
export function forgetImageLists(): void {
  last = null;
}
