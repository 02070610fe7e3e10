// Run-length masks as COCO's mask API (cocoapi common/maskApi.c) makes and compares them: column-major
// runs starting with a run of zeros. The polygon rasteriser and the string codec follow that code step
// by step, so a polygon covers exactly the pixels pycocotools gives it and the IoUs are the same.

export interface Rle {
  h: number;
  w: number;
  counts: Uint32Array;
}

/** rleFrPoly: one polygon (x0, y0, x1, y1, …) in an image h × w, upsampled by 5 along its edges. */
export function rleFromPolygon(xy: readonly number[], h: number, w: number): Rle {
  const k = Math.floor(xy.length / 2);
  const scale = 5;
  // C's (int) cast truncates toward zero.
  const x: number[] = [];
  const y: number[] = [];
  for (let j = 0; j < k; j++) x.push(Math.trunc(scale * xy[j * 2]! + 0.5));
  for (let j = 0; j < k; j++) y.push(Math.trunc(scale * xy[j * 2 + 1]! + 0.5));
  x.push(x[0]!);
  y.push(y[0]!);
  const u: number[] = [];
  const v: number[] = [];
  for (let j = 0; j < k; j++) {
    let xs = x[j]!;
    let xe = x[j + 1]!;
    let ys = y[j]!;
    let ye = y[j + 1]!;
    const dx = Math.abs(xe - xs);
    const dy = Math.abs(ys - ye);
    const flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
    if (flip) {
      [xs, xe] = [xe, xs];
      [ys, ye] = [ye, ys];
    }
    const s = dx >= dy ? (ye - ys) / dx : (xe - xs) / dy;
    if (dx >= dy) {
      for (let d = 0; d <= dx; d++) {
        const t = flip ? dx - d : d;
        u.push(t + xs);
        v.push(Math.trunc(ys + s * t + 0.5));
      }
    } else {
      for (let d = 0; d <= dy; d++) {
        const t = flip ? dy - d : d;
        v.push(t + ys);
        u.push(Math.trunc(xs + s * t + 0.5));
      }
    }
  }
  // Points along the y-boundary, downsampled.
  const bx: number[] = [];
  const by: number[] = [];
  for (let j = 1; j < u.length; j++) {
    if (u[j] === u[j - 1]) continue;
    let xd = u[j]! < u[j - 1]! ? u[j]! : u[j]! - 1;
    xd = (xd + 0.5) / scale - 0.5;
    if (Math.floor(xd) !== xd || xd < 0 || xd > w - 1) continue;
    let yd = v[j]! < v[j - 1]! ? v[j]! : v[j - 1]!;
    yd = (yd + 0.5) / scale - 0.5;
    if (yd < 0) yd = 0;
    else if (yd > h) yd = h;
    yd = Math.ceil(yd);
    bx.push(Math.trunc(xd));
    by.push(Math.trunc(yd));
  }
  const a: number[] = bx.map((xv, j) => (xv * h + by[j]!) >>> 0);
  a.push((h * w) >>> 0);
  a.sort((p, q) => p - q);
  let p = 0;
  for (let j = 0; j < a.length; j++) {
    const t = a[j]!;
    a[j] = t - p;
    p = t;
  }
  const b: number[] = [];
  let j = 0;
  b.push(a[j++]!);
  while (j < a.length) {
    if (a[j]! > 0) b.push(a[j++]!);
    else {
      j++;
      if (j < a.length) b[b.length - 1]! += a[j++]!;
    }
  }
  return { h, w, counts: Uint32Array.from(b) };
}

/** rleFrString: COCO's compressed counts (LEB128-like, 6 bits a character from '0'). */
export function rleFromString(s: string, h: number, w: number): Rle {
  const counts: number[] = [];
  let p = 0;
  while (p < s.length) {
    // BigInt-free: a count fits 2^32, and the sign extension needs at most 7 characters of 5 bits.
    let x = 0;
    let k = 0;
    let more = true;
    while (more) {
      const c = s.charCodeAt(p) - 48;
      x += (c & 0x1f) * 2 ** (5 * k);
      more = (c & 0x20) !== 0;
      p++;
      k++;
      if (!more && (c & 0x10) !== 0) x -= 2 ** (5 * k);
    }
    if (counts.length > 2) x += counts[counts.length - 2]!;
    counts.push(x >>> 0);
  }
  return { h, w, counts: Uint32Array.from(counts) };
}

/** rleEncode of a column-major 0/1 mask. */
export function rleFromMask(mask: Uint8Array, h: number, w: number): Rle {
  const counts: number[] = [];
  let previous = 0;
  let run = 0;
  for (let i = 0; i < h * w; i++) {
    const value = mask[i] ? 1 : 0;
    if (value !== previous) {
      counts.push(run);
      run = 0;
      previous = value;
    }
    run++;
  }
  counts.push(run);
  return { h, w, counts: Uint32Array.from(counts) };
}

/** rleMerge: the union (or intersection) of masks of one size. */
export function rleMerge(rles: readonly Rle[], intersect = false): Rle {
  if (rles.length === 0) return { h: 0, w: 0, counts: new Uint32Array(0) };
  if (rles.length === 1) return rles[0]!;
  const { h, w } = rles[0]!;
  let cnts = Array.from(rles[0]!.counts);
  for (let i = 1; i < rles.length; i++) {
    const B = rles[i]!.counts;
    const A = cnts;
    const out: number[] = [];
    let ca = A[0]!;
    let cb = B[0]!;
    let v = 0;
    let va = 0;
    let vb = 0;
    let a = 1;
    let b = 1;
    let cc = 0;
    let ct = 1;
    while (ct > 0) {
      const c = Math.min(ca, cb);
      cc += c;
      ct = 0;
      ca -= c;
      if (!ca && a < A.length) {
        ca = A[a++]!;
        va = va ? 0 : 1;
      }
      ct += ca;
      cb -= c;
      if (!cb && b < B.length) {
        cb = B[b++]!;
        vb = vb ? 0 : 1;
      }
      ct += cb;
      const vp = v;
      v = intersect ? va & vb : va | vb;
      if (v !== vp || ct === 0) {
        out.push(cc);
        cc = 0;
      }
    }
    cnts = out;
  }
  return { h, w, counts: Uint32Array.from(cnts) };
}

/** rleArea: the pixels set. */
export function rleArea(r: Rle): number {
  let area = 0;
  for (let j = 1; j < r.counts.length; j += 2) area += r.counts[j]!;
  return area;
}

/** rleIou of one pair: intersection over union, or over the detection's area when the truth is a crowd. */
export function rleIou(dt: Rle, gt: Rle, crowd: boolean): number {
  if (dt.h !== gt.h || dt.w !== gt.w) return -1;
  let ca = dt.counts[0] ?? 0;
  let cb = gt.counts[0] ?? 0;
  const ka = dt.counts.length;
  const kb = gt.counts.length;
  let va = false;
  let vb = false;
  let a = 1;
  let b = 1;
  let i = 0;
  let u = 0;
  let ct = 1;
  while (ct > 0) {
    const c = Math.min(ca, cb);
    if (va || vb) {
      u += c;
      if (va && vb) i += c;
    }
    ct = 0;
    ca -= c;
    if (!ca && a < ka) {
      ca = dt.counts[a++]!;
      va = !va;
    }
    ct += ca;
    cb -= c;
    if (!cb && b < kb) {
      cb = gt.counts[b++]!;
      vb = !vb;
    }
    ct += cb;
  }
  if (i === 0) return 0;
  if (crowd) u = rleArea(dt);
  return i / u;
}

/** bbIou of one pair of [x, y, w, h] boxes; a crowd truth divides by the detection's area. */
export function boxIou(dt: readonly number[], gt: readonly number[], crowd: boolean): number {
  const ga = gt[2]! * gt[3]!;
  const da = dt[2]! * dt[3]!;
  const w = Math.min(dt[2]! + dt[0]!, gt[2]! + gt[0]!) - Math.max(dt[0]!, gt[0]!);
  if (w <= 0) return 0;
  const h = Math.min(dt[3]! + dt[1]!, gt[3]! + gt[1]!) - Math.max(dt[1]!, gt[1]!);
  if (h <= 0) return 0;
  const i = w * h;
  return i / (crowd ? da : da + ga - i);
}

/** rleToBbox: [x, y, w, h] of the pixels set (a run crossing columns spans the column's height). */
export function rleToBox(r: Rle): number[] {
  const { h, w } = r;
  const m = Math.floor(r.counts.length / 2) * 2;
  if (m === 0) return [0, 0, 0, 0];
  let xs = w;
  let ys = h;
  let xe = 0;
  let ye = 0;
  let cc = 0;
  let xp = 0;
  for (let j = 0; j < m; j++) {
    cc += r.counts[j]!;
    const t = cc - (j % 2);
    const y = t % h;
    const x = (t - y) / h;
    if (j % 2 === 0) xp = x;
    else if (xp < x) {
      ys = 0;
      ye = h - 1;
    }
    xs = Math.min(xs, x);
    xe = Math.max(xe, x);
    ys = Math.min(ys, y);
    ye = Math.max(ye, y);
  }
  return [xs, ys, xe - xs + 1, ye - ys + 1];
}
