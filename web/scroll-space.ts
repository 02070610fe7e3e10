// Where a scroller's position puts its content, when the content is taller than a browser lets an
// element be (Chromium caps it at 33,554,400 px, Firefox near 17.9 million: a million tiles are 41
// million px). The scroller is given at most MAX_SPACE px, and the content is mapped onto it:
// - a move of the scrollbar (a drag, a click in the track, Home/End, a programmatic scroll) puts the
//   content at the same fraction as the thumb, so the thumb at the end shows the last row;
// - a wheel, a touch or a key moves the content by exactly what the scroller moved, so the rows
//   glide as in any page; the thumb then drifts from the fraction, and when it nears an end the
//   content has not reached, it is put back at the content's fraction (`resync`), with room for what
//   is left, so the wheel can always go on to the first and the last row.
// Below MAX_SPACE the content and the scroller are one: nothing is mapped.

/** Well under every browser's cap on an element's height. */
export const MAX_SPACE = 8_000_000;

export interface ScrollMap {
  /** The scroller's height in px: the content's, or MAX_SPACE. */
  space: number;
  /** The content px at the top of the viewport. */
  top: number;
}

export class ScrollSpace {
  /** The content's height and the viewport's, in px. */
  private content = 0;
  private viewport = 0;
  top = 0;
  private scrollTop = 0;

  get space(): number {
    return Math.min(this.content, MAX_SPACE);
  }

  get scaled(): boolean {
    return this.content > MAX_SPACE;
  }

  /** Whether the content's end is in view. */
  get atEnd(): boolean {
    return this.content > this.viewport && this.top >= this.maxTop - 1;
  }

  private get maxTop(): number {
    return Math.max(0, this.content - this.viewport);
  }

  private get maxScroll(): number {
    return Math.max(0, this.space - this.viewport);
  }

  /** The content or the viewport changed size: the content keeps its top where it can. */
  resize(content: number, viewport: number): void {
    this.content = content;
    this.viewport = viewport;
    this.top = Math.min(this.top, this.maxTop);
  }

  /**
   * The scroller moved to `scrollTop`; `fine` when a wheel, a touch or a key moved it. Answers the
   * scrollTop to set when the thumb must be put back at the content's fraction, else null.
   */
  scrolled(scrollTop: number, fine: boolean): number | null {
    const delta = scrollTop - this.scrollTop;
    this.scrollTop = scrollTop;
    if (!this.scaled) {
      this.top = scrollTop;
      return null;
    }
    const maxScroll = this.maxScroll;
    if (scrollTop <= 0) this.top = 0;
    else if (scrollTop >= maxScroll - 1) this.top = this.maxTop;
    else if (fine) this.top = Math.min(this.maxTop, Math.max(0, this.top + delta));
    else this.top = (scrollTop / maxScroll) * this.maxTop;
    if (!fine) return null;
    // The thumb near an end the content has not reached: the wheel would stop there.
    const nearStart = scrollTop < this.viewport && this.top > scrollTop;
    const nearEnd = scrollTop > maxScroll - this.viewport && this.maxTop - this.top > maxScroll - scrollTop;
    return nearStart || nearEnd ? this.resync() : null;
  }

  /**
   * The scrollTop of the content's fraction, but with room for the content left above and below it up
   * to two viewports, so that near an end the wheel goes on one to one and meets the end with it.
   */
  resync(): number {
    const maxScroll = this.maxScroll;
    let target = this.maxTop > 0 ? Math.round((this.top / this.maxTop) * maxScroll) : 0;
    target = Math.max(target, Math.min(this.top, 2 * this.viewport));
    target = Math.min(target, maxScroll - Math.min(this.maxTop - this.top, 2 * this.viewport));
    this.scrollTop = Math.max(0, Math.min(maxScroll, Math.round(target)));
    return this.scrollTop;
  }

  /** Puts the content's top at `top` (a jump): answers the scrollTop to set. */
  jumpTo(top: number): number {
    this.top = Math.min(this.maxTop, Math.max(0, top));
    return this.scaled ? this.resync() : (this.scrollTop = this.top);
  }

  /** Where content px `y` is in the scroller: tiles are placed there. */
  place(y: number): number {
    return y - this.top + this.scrollTop;
  }
}
