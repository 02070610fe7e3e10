// A setting held by any number of overlapping users (large imports, their requests): the first hold
// puts it in place, the release of the last takes it away.

export class CountedHold {
  #holders = 0;
  readonly #first: () => void;
  readonly #last: () => void;

  /** `first` runs when a hold starts with none before it, `last` when the last one is released. */
  constructor(first: () => void, last: () => void) {
    this.#first = first;
    this.#last = last;
  }

  /** Whether any hold is in place. */
  get held(): boolean {
    return this.#holders > 0;
  }

  /** Takes a hold until the answer is called (once; later calls do nothing). */
  hold(): () => void {
    if (this.#holders++ === 0) this.#first();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.#holders === 0) this.#last();
    };
  }
}
