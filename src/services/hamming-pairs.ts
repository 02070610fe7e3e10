// Finds every pair of images near one another by their two perceptual hashes (see DEFAULT_DISTANCE),
// among many (100,000: about a twentieth of the time of comparing every pair, bench/near-duplicates.ts),
// without comparing every pair. Pure: arrays in, pairs out.
//
// Multi-index hashing: the 64 bits of the pHash are cut into four 16-bit chunks. If two hashes are at
// most d = 4q + s bits apart (0 ≤ s < 4), then one of the first s + 1 chunks differs in at most q bits
// or one of the others in at most q − 1 (otherwise they would differ in at least
// (s + 1)(q + 1) + (3 − s) q = d + 1 bits). So a chunk's candidates are the hashes whose chunk is its
// value with that many bits flipped or fewer: at d = 12, 697 buckets for the first chunk and 137 for
// the three others. Each chunk's buckets are one counting sort (an offsets array of 65,537 entries),
// and each pair of buckets is visited once, from the lower. A pair met in several chunks is kept only
// in the first that finds it.

/**
 * The rule: a pair is near at distance N when its pHashes are at most N bits apart and its dHashes at
 * most ⌊3N / 2⌋. The dHash (edges on a 9 × 8 grid) moves more than the pHash under a crop of a few
 * per cent, so it gets half again as much room; it still vetoes pairs whose coarse layout agrees but
 * whose edges do not. On the corpus of test/helpers/near-duplicate-corpus.ts, N = 12 groups every
 * copy with its original but one in 300, and no two distinct pictures together.
 */
export const DEFAULT_DISTANCE = 12;
/** The largest distance searched: beyond it distinct pictures fall together and a search slows down. */
export const MAX_DISTANCE = 16;

export const dhashLimit = (distance: number): number => Math.floor((3 * distance) / 2);

/**
 * 64-bit hashes, two 32-bit words each (high word at 2i, low at 2i + 1): `phash` for the index, `dhash`
 * checked beside it.
 */
export interface HashArrays {
  phash: Uint32Array;
  dhash: Uint32Array;
}

export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Packs hashes written as 16 hex digits into words (see HashArrays). */
export function packHashes(hexes: readonly string[]): Uint32Array {
  const words = new Uint32Array(hexes.length * 2);
  hexes.forEach((hex, i) => {
    words[2 * i] = Number.parseInt(hex.slice(0, 8), 16);
    words[2 * i + 1] = Number.parseInt(hex.slice(8, 16), 16);
  });
  return words;
}

/** Hamming distance between hash i of `a` and hash j of `b`. */
export function distanceBetween(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  return popcount32(a[2 * i]! ^ b[2 * j]!) + popcount32(a[2 * i + 1]! ^ b[2 * j + 1]!);
}

/** Every 16-bit value with at most `radius` bits set. */
function flipMasks(radius: number): Int32Array {
  const masks: number[] = [];
  for (let m = 0; m < 1 << 16; m += 1) if (popcount32(m) <= radius) masks.push(m);
  return Int32Array.from(masks);
}

/** The 16-bit chunk `c` (0 = top) of hash i. */
const chunkOf = (words: Uint32Array, i: number, c: number): number => {
  const word = words[2 * i + (c >> 1)]!;
  return c & 1 ? word & 0xffff : word >>> 16;
};

/**
 * Hash indexes sorted by one chunk: those of chunk value v are order[start[v]] … order[start[v + 1] − 1].
 * The hashes are copied in that order too (`phash`, `dhash`), so a bucket's are read side by side.
 */
function bucketsOf(hashes: HashArrays, count: number, c: number): { start: Int32Array; order: Int32Array; phash: Uint32Array; dhash: Uint32Array } {
  const words = hashes.phash;
  const start = new Int32Array((1 << 16) + 1);
  for (let i = 0; i < count; i += 1) start[chunkOf(words, i, c) + 1]! += 1;
  for (let v = 0; v < 1 << 16; v += 1) start[v + 1]! += start[v]!;
  const fill = start.slice(0, 1 << 16);
  const order = new Int32Array(count);
  const phash = new Uint32Array(count * 2);
  const dhash = new Uint32Array(count * 2);
  for (let i = 0; i < count; i += 1) {
    const k = fill[chunkOf(words, i, c)]!++;
    order[k] = i;
    phash[2 * k] = words[2 * i]!;
    phash[2 * k + 1] = words[2 * i + 1]!;
    dhash[2 * k] = hashes.dhash[2 * i]!;
    dhash[2 * k + 1] = hashes.dhash[2 * i + 1]!;
  }
  return { start, order, phash, dhash };
}

function checkDistance(distance: number): void {
  if (!Number.isInteger(distance) || distance < 0 || distance > MAX_DISTANCE) throw new RangeError(`distance must be an integer from 0 to ${MAX_DISTANCE}`);
}

/** How many bits chunk `c` may differ in for a pair `distance` apart to be found in it; −1: none. */
function radiusOf(distance: number, c: number): number {
  const q = Math.floor(distance / 4);
  return c <= distance % 4 ? q : q - 1;
}

/** Whether chunk `c` of the xor of two hashes (`xhi`, `xlo`) is within its radius. */
function chunkWithin(xhi: number, xlo: number, c: number, radius: number): boolean {
  const x = c < 2 ? xhi : xlo;
  return popcount32(c & 1 ? x & 0xffff : x >>> 16) <= radius;
}

/** Calls `visit(i, j)` (i < j) once for every pair near at `distance` (see DEFAULT_DISTANCE). */
export function forEachNearPair(hashes: HashArrays, distance: number, visit: (i: number, j: number) => void): void {
  checkDistance(distance);
  const count = hashes.phash.length / 2;
  const dLimit = dhashLimit(distance);
  const radii = [0, 1, 2, 3].map((c) => radiusOf(distance, c));
  for (let c = 0; c < 4; c += 1) {
    const radius = radii[c]!;
    if (radius < 0) continue;
    const masks = flipMasks(radius);
    const { start, order, phash, dhash } = bucketsOf(hashes, count, c);
    for (let b = 0; b < 1 << 16; b += 1) {
      const first = start[b]!;
      const last = start[b + 1]!;
      if (first === last) continue;
      for (let m = 0; m < masks.length; m += 1) {
        const other = b ^ masks[m]!;
        if (other < b) continue;
        const otherLast = start[other + 1]!;
        if (start[other] === otherLast) continue;
        for (let k = first; k < last; k += 1) {
          const hi = phash[2 * k]!;
          const lo = phash[2 * k + 1]!;
          const dhi = dhash[2 * k]!;
          const dlo = dhash[2 * k + 1]!;
          for (let l = other === b ? k + 1 : start[other]!; l < otherLast; l += 1) {
            const xhi = hi ^ phash[2 * l]!;
            const xlo = lo ^ phash[2 * l + 1]!;
            if (popcount32(xhi) + popcount32(xlo) > distance) continue;
            if (popcount32(dhi ^ dhash[2 * l]!) + popcount32(dlo ^ dhash[2 * l + 1]!) > dLimit) continue;
            let earlier = false;
            for (let e = 0; e < c && !earlier; e += 1) earlier = radii[e]! >= 0 && chunkWithin(xhi, xlo, e, radii[e]!);
            if (earlier) continue;
            const i = order[k]!;
            const j = order[l]!;
            if (i < j) visit(i, j);
            else visit(j, i);
          }
        }
      }
    }
  }
}

/** Disjoint sets of indexes, joined by union; `find` answers a set's representative. */
export class UnionFind {
  private readonly parent: Int32Array;

  constructor(count: number) {
    this.parent = Int32Array.from({ length: count }, (_, i) => i);
  }

  find(i: number): number {
    let root = i;
    while (this.parent[root] !== root) root = this.parent[root]!;
    while (this.parent[i] !== root) {
      const next = this.parent[i]!;
      this.parent[i] = root;
      i = next;
    }
    return root;
  }

  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/**
 * The groups of hashes linked by near pairs (a chain a–b–c is one group even when a and c are far
 * apart), each in index order, groups by their first index; hashes near no other are left out.
 */
export function nearGroups(hashes: HashArrays, distance: number): number[][] {
  const count = hashes.phash.length / 2;
  const sets = new UnionFind(count);
  forEachNearPair(hashes, distance, (i, j) => sets.union(i, j));
  const groups = new Map<number, number[]>();
  for (let i = 0; i < count; i += 1) {
    const root = sets.find(i);
    const group = groups.get(root);
    if (group) group.push(i);
    else groups.set(root, [i]);
  }
  return [...groups.values()].filter((g) => g.length > 1);
}

export interface NearHash {
  index: number;
  phashDistance: number;
  dhashDistance: number;
}

/**
 * The hashes near hash `q` of `query` at `distance`, nearest first (by the sum of the two distances,
 * then index): a plain scan, for one image against a team's.
 */
export function nearestTo(hashes: HashArrays, query: HashArrays, q: number, distance: number): NearHash[] {
  checkDistance(distance);
  const found: NearHash[] = [];
  const dLimit = dhashLimit(distance);
  const count = hashes.phash.length / 2;
  for (let i = 0; i < count; i += 1) {
    const phashDistance = distanceBetween(hashes.phash, i, query.phash, q);
    if (phashDistance > distance) continue;
    const dhashDistance = distanceBetween(hashes.dhash, i, query.dhash, q);
    if (dhashDistance <= dLimit) found.push({ index: i, phashDistance, dhashDistance });
  }
  return found.sort((a, b) => a.phashDistance + a.dhashDistance - (b.phashDistance + b.dhashDistance) || a.index - b.index);
}
