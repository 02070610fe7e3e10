// A page of a list sorted by id: the items, where the next page starts, and the total when asked.

export interface Page<T> {
  items: T[];
  /** The id the next page starts after, or null on the last page. */
  nextAfterId: number | null;
  /** How many items the whole list holds, when the caller asked. */
  total?: number;
}

export interface PageRequest {
  /** Only items after this id. */
  afterId?: number;
  limit: number;
  /** Count the whole list too (a second query). */
  total?: boolean;
}

/**
 * The first `limit` of `rows`, read with a limit of `limit + 1` so that one more row tells whether
 * another page follows without a count.
 */
export function pageOfRows<Row extends { id: number }>(rows: Row[], limit: number): { rows: Row[]; nextAfterId: number | null } {
  if (rows.length <= limit) return { rows, nextAfterId: null };
  const kept = rows.slice(0, limit);
  return { rows: kept, nextAfterId: kept[kept.length - 1]!.id };
}
