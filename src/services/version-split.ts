// How a version's images are divided into subsets (train, val, test…): pure functions over image ids,
// so a seed gives the same subsets on every server and database.
import { mulberry32 } from '../seeded-random.ts';

/** A split rule as the API takes it. */
export type SplitRule =
  | { method: 'none' }
  | { method: 'random'; ratios: Record<string, number>; seed: number; stratify?: boolean }
  | { method: 'datasets' };

/** The generator a split draws from: the same seed, the same subsets. */
export const seededRandom = mulberry32;

/** Fisher–Yates with the generator: the same seed and ids give the same order. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * How many of `total` each subset gets: the ratios' shares rounded down, and the images left over one
 * each to the subsets with the largest remainders (then in the order given), so the counts add up to
 * `total` and each is within one of its exact share.
 */
export function subsetSizes(ratios: readonly [string, number][], total: number): Map<string, number> {
  const sum = ratios.reduce((s, [, r]) => s + r, 0);
  const exact = ratios.map(([name, r]) => ({ name, share: (r / sum) * total }));
  const sizes = new Map(exact.map((e) => [e.name, Math.floor(e.share)]));
  let left = total - [...sizes.values()].reduce((s, n) => s + n, 0);
  const byRemainder = exact.map((e, order) => ({ ...e, order })).sort((a, b) => b.share - Math.floor(b.share) - (a.share - Math.floor(a.share)) || a.order - b.order);
  for (const e of byRemainder) {
    if (left === 0) break;
    sizes.set(e.name, sizes.get(e.name)! + 1);
    left--;
  }
  return sizes;
}

/**
 * The subset of each image of a random split. Ids are sorted first, so the order they were read in
 * does not matter; with `strata` (a stratum per image, e.g. its most frequent class), each stratum is
 * split by the ratios on its own, so every class is spread over the subsets as the ratios say.
 */
export function randomSplit(imageIds: readonly number[], ratios: Record<string, number>, seed: number, strata?: ReadonlyMap<number, string>): Map<string, number[]> {
  const entries = Object.entries(ratios);
  const out = new Map<string, number[]>(entries.map(([name]) => [name, []]));
  const groups = new Map<string, number[]>();
  for (const id of [...imageIds].sort((a, b) => a - b)) {
    const key = strata?.get(id) ?? '';
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(id);
  }
  const random = seededRandom(seed);
  for (const key of [...groups.keys()].sort()) {
    const order = shuffled(groups.get(key)!, random);
    let at = 0;
    for (const [name, size] of subsetSizes(entries, order.length)) {
      out.get(name)!.push(...order.slice(at, at + size));
      at += size;
    }
  }
  return out;
}

/**
 * An image's stratum from its objects per class title: the class with the most objects (the first
 * such in title order), or '' for none.
 */
export function dominantClass(counts: Iterable<readonly [string, number]>): string {
  let best = '';
  let most = 0;
  for (const [title, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (n > most) [best, most] = [title, n];
  }
  return best;
}
