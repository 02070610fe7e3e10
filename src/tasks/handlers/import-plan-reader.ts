// An import task's plan, read a part at a time while the task runs (import.repository.ts stores it in
// parts of PLAN_PART_ITEMS). Held whole, the plan of an import of 100,000 images (four strings an item)
// was half of the server's heap for the whole import.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.ts';
import { type ImportItem, readPlanPart } from '../../repositories/import.repository.ts';

/** Items of the plan with their places in it. */
export type Slice = { item: ImportItem; index: number }[];

export interface PlanSummary {
  total: number;
  /** Items not done yet, and those of them with an annotation file. */
  pending: number;
  annotatedPending: number;
}

/** Counts the plan's items, a part at a time; `done` holds the places of those committed already. */
export async function summarisePlan(db: Kysely<Database>, taskId: number, done: ReadonlySet<number>): Promise<PlanSummary> {
  const summary: PlanSummary = { total: 0, pending: 0, annotatedPending: 0 };
  for (let part = 0; ; part += 1) {
    const items = await readPlanPart(db, taskId, part);
    if (!items) return summary;
    for (const item of items) {
      const index = summary.total++;
      if (done.has(index)) continue;
      summary.pending += 1;
      if (item.a) summary.annotatedPending += 1;
    }
  }
}

/** The plan's items not done yet, in order, a slice at a time. */
export class PendingItems {
  readonly #db: Kysely<Database>;
  readonly #taskId: number;
  readonly #done: ReadonlySet<number>;
  #part = 0;
  /** The part being read, from `#next` on, and the place of its first item in the plan. */
  #items: ImportItem[] = [];
  #next = 0;
  #first = 0;
  #ended = false;

  constructor(db: Kysely<Database>, taskId: number, done: ReadonlySet<number>) {
    this.#db = db;
    this.#taskId = taskId;
    this.#done = done;
  }

  /** The next `count` items not done (fewer at the end; none once every item was taken). */
  async take(count: number): Promise<Slice> {
    const slice: Slice = [];
    while (slice.length < count) {
      if (this.#next === this.#items.length && !(await this.#readPart())) break;
      const index = this.#first + this.#next;
      const item = this.#items[this.#next++]!;
      if (!this.#done.has(index)) slice.push({ item, index });
    }
    return slice;
  }

  async #readPart(): Promise<boolean> {
    if (this.#ended) return false;
    const items = await readPlanPart(this.#db, this.#taskId, this.#part);
    if (!items) {
      this.#ended = true;
      this.#items = [];
      this.#next = 0;
      return false;
    }
    this.#first += this.#items.length;
    this.#items = items;
    this.#next = 0;
    this.#part += 1;
    return true;
  }
}
