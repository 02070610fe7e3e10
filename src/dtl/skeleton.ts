// Skeletons of binary masks, for the skeletonize layer: three ways to thin a mask to lines one pixel
// wide, after the three methods the 2018 DTL took from scikit-image.
//
// - `skeletonization`: Zhang and Suen's parallel thinning (1984), two subiterations a pass.
// - `thinning`: Guo and Hall's parallel thinning (1989, algorithm A1 as Lam, Lee and Suen describe
//   it in 1992), which keeps 8-connected lines and is what scikit-image's `thin` does.
// - `medial_axis`: pixels removed one by one in order of their Euclidean distance to the background,
//   nearest first, each only when its removal leaves its neighbourhood connected and it is no end
//   of a line, as scikit-image's `medial_axis` does (ties in scan order here, not at random).
//
// Every method sees the mask with a border of background around it: the pixels outside a bitmap
// are unset.
import type { Raster } from '../formats/raster.ts';

export const SKELETON_METHODS = ['skeletonization', 'medial_axis', 'thinning'] as const;
export type SkeletonMethod = (typeof SKELETON_METHODS)[number];

/** The skeleton of a mask, as a mask of the same size. */
export function skeleton(mask: Raster, method: SkeletonMethod): Raster {
  const padded = pad(mask);
  if (method === 'skeletonization') zhangSuen(padded);
  else if (method === 'thinning') guoHall(padded);
  else medialAxis(padded);
  return unpad(padded, mask.width, mask.height);
}

function pad(mask: Raster): Raster {
  const width = mask.width + 2;
  const height = mask.height + 2;
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < mask.height; y++) for (let x = 0; x < mask.width; x++) pixels[(y + 1) * width + x + 1] = mask.pixels[y * mask.width + x] ? 1 : 0;
  return { width, height, pixels };
}

function unpad(padded: Raster, width: number, height: number): Raster {
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = padded.pixels[(y + 1) * padded.width + x + 1]!;
  return { width, height, pixels };
}

/**
 * The 8 neighbours of pixel p as bits, counter-clockwise from the east: bit 0 east, 1 north-east,
 * 2 north, 3 north-west, 4 west, 5 south-west, 6 south, 7 south-east. The pixel is not on the border.
 */
function neighbours(pixels: Uint8Array, width: number, p: number): number {
  const n = p - width;
  const s = p + width;
  return pixels[p + 1]! | (pixels[n + 1]! << 1) | (pixels[n]! << 2) | (pixels[n - 1]! << 3) | (pixels[p - 1]! << 4) | (pixels[s - 1]! << 5) | (pixels[s]! << 6) | (pixels[s + 1]! << 7);
}

const bit = (bits: number, k: number): number => (bits >> (k & 7)) & 1;
const E = 0;
const N = 2;
const W = 4;
const S = 6;

/** Set neighbours. */
function count(bits: number): number {
  let c = 0;
  for (let k = 0; k < 8; k++) c += bit(bits, k);
  return c;
}

/** 0 → 1 changes going once round the neighbours. */
function transitions(bits: number): number {
  let t = 0;
  for (let k = 0; k < 8; k++) if (!bit(bits, k) && bit(bits, k + 1)) t++;
  return t;
}

/** Runs subiterations, each deciding on every set pixel from the same state, until a pass removes none. */
function thinInPasses(r: Raster, removable: ((bits: number) => boolean)[]): void {
  const { width, height, pixels } = r;
  const remove: number[] = [];
  for (let changed = true; changed; ) {
    changed = false;
    for (const rule of removable) {
      remove.length = 0;
      for (let y = 1; y < height - 1; y++) {
        for (let x = 1, p = y * width + 1; x < width - 1; x++, p++) if (pixels[p] && rule(neighbours(pixels, width, p))) remove.push(p);
      }
      for (const p of remove) pixels[p] = 0;
      if (remove.length) changed = true;
    }
  }
}

function zhangSuen(r: Raster): void {
  // A border pixel (2 to 6 neighbours, one run of them) that is not needed to join its neighbours:
  // first the south-east boundary and north-west corners, then the north-west boundary.
  const common = (b: number) => {
    const c = count(b);
    return c >= 2 && c <= 6 && transitions(b) === 1;
  };
  thinInPasses(r, [
    (b) => common(b) && !(bit(b, N) && bit(b, E) && bit(b, S)) && !(bit(b, E) && bit(b, S) && bit(b, W)),
    (b) => common(b) && !(bit(b, N) && bit(b, E) && bit(b, W)) && !(bit(b, N) && bit(b, S) && bit(b, W)),
  ]);
}

function guoHall(r: Raster): void {
  // x1…x8 of the paper are bits 0…7 here.
  const x = (b: number, i: number) => bit(b, i - 1);
  const connected = (b: number) => {
    let c = 0;
    for (const i of [1, 3, 5, 7]) if (!x(b, i) && (x(b, i + 1) || x(b, (i + 1) % 8 + 1))) c++;
    return c === 1;
  };
  const thick = (b: number) => {
    let n1 = 0;
    let n2 = 0;
    for (const k of [1, 2, 3, 4]) {
      if (x(b, 2 * k - 1) || x(b, 2 * k)) n1++;
      if (x(b, 2 * k) || x(b, (2 * k) % 8 + 1)) n2++;
    }
    const m = Math.min(n1, n2);
    return m === 2 || m === 3;
  };
  const g12 = (b: number) => connected(b) && thick(b);
  thinInPasses(r, [(b) => g12(b) && !((x(b, 2) || x(b, 3) || !x(b, 8)) && x(b, 1)), (b) => g12(b) && !((x(b, 6) || x(b, 7) || !x(b, 4)) && x(b, 5))]);
}

/** Whether the set neighbours (bits as `neighbours` gives them) form exactly one 8-connected group within the 3×3 window. */
function oneGroup(bits: number): boolean {
  // Positions of bits 0…7 in the window, (dx, dy).
  const at = [[1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1], [0, 1], [1, 1]] as const;
  const set = [0, 1, 2, 3, 4, 5, 6, 7].filter((k) => bit(bits, k));
  if (set.length === 0) return false;
  const seen = new Set([set[0]!]);
  const stack = [set[0]!];
  while (stack.length) {
    const k = stack.pop()!;
    for (const j of set) {
      if (seen.has(j)) continue;
      if (Math.abs(at[k]![0] - at[j]![0]) <= 1 && Math.abs(at[k]![1] - at[j]![1]) <= 1) {
        seen.add(j);
        stack.push(j);
      }
    }
  }
  return seen.size === set.length;
}

/** For each neighbourhood: a pixel may go when its neighbours stay one group without it and it has two or more. */
const MEDIAL_REMOVABLE = Uint8Array.from({ length: 256 }, (_, bits) => (count(bits) >= 2 && oneGroup(bits) ? 1 : 0));

function medialAxis(r: Raster): void {
  const { width, pixels } = r;
  const distance = squaredDistanceToBackground(r);
  const order: number[] = [];
  const crowd = new Uint8Array(pixels.length);
  for (let p = 0; p < pixels.length; p++) {
    if (!pixels[p]) continue;
    order.push(p);
    crowd[p] = count(neighbours(pixels, width, p));
  }
  // Nearest the background first; among those, the pixels with more neighbours first (scikit-image's
  // order by 9 less the pixels of the window), then scan order.
  order.sort((a, b) => distance[a]! - distance[b]! || crowd[b]! - crowd[a]! || a - b);
  for (const p of order) if (MEDIAL_REMOVABLE[neighbours(pixels, width, p)]) pixels[p] = 0;
}

/** Squared Euclidean distance from each pixel to the nearest unset one (Felzenszwalb and Huttenlocher's two passes). */
function squaredDistanceToBackground({ width, height, pixels }: Raster): Float64Array {
  const INF = 1e20;
  const d = new Float64Array(width * height);
  for (let p = 0; p < d.length; p++) d[p] = pixels[p] ? INF : 0;
  const line = new Float64Array(Math.max(width, height));
  const out = new Float64Array(line.length);
  const v = new Int32Array(line.length);
  const z = new Float64Array(line.length + 1);
  const pass = (n: number, get: (i: number) => number, set: (i: number, value: number) => void) => {
    for (let i = 0; i < n; i++) line[i] = get(i);
    let k = 0;
    v[0] = 0;
    z[0] = -Infinity;
    z[1] = Infinity;
    for (let q = 1; q < n; q++) {
      let s = (line[q]! + q * q - (line[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
      while (s <= z[k]!) {
        k--;
        s = (line[q]! + q * q - (line[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
      }
      k++;
      v[k] = q;
      z[k] = s;
      z[k + 1] = Infinity;
    }
    k = 0;
    for (let q = 0; q < n; q++) {
      while (z[k + 1]! < q) k++;
      out[q] = (q - v[k]!) * (q - v[k]!) + line[v[k]!]!;
    }
    for (let i = 0; i < n; i++) set(i, out[i]!);
  };
  for (let x = 0; x < width; x++) pass(height, (y) => d[y * width + x]!, (y, value) => (d[y * width + x] = value));
  for (let y = 0; y < height; y++) pass(width, (x) => d[y * width + x]!, (x, value) => (d[y * width + x] = value));
  return d;
}
