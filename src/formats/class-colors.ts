// Colours for classes that come without one. Hashing a title onto the hue circle gave neighbours and
// repeats (three of twelve chess pieces the same green), so classes take, in order, colours of a
// palette made for many categories: each next colour is the one farthest (CIEDE2000) from all those
// before it, Glasbey-style. No Node module here: the web interface picks from the same palette.

/**
 * Made by the greedy max-min search of Glasbey et al. (2007) over the sRGB grid in steps of 15,
 * seeded with #e6194b, kept to CIELAB lightness 40–88 and chroma of at least 35 (so none is lost
 * on a grey, black or white photograph), each also far from black, white and mid grey. The first
 * 12 are at least ΔE00 23 apart, the first 24 at least 16, all 32 at least 14.
 */
export const CLASS_PALETTE: readonly string[] = [
  '#e6194b', '#00d200', '#780fff', '#ffa500', '#ff87ff', '#00c3ff', '#964b00', '#00780f',
  '#ffa596', '#0078f0', '#00f0d2', '#969600', '#009687', '#874b78', '#e1e196', '#a5b4ff',
  '#ff4b00', '#f00fa5', '#9678c3', '#78692d', '#78a569', '#c3875a', '#e187a5', '#5a5a96',
  '#c30000', '#ffd200', '#d23cff', '#b4f000', '#96f0a5', '#5af0ff', '#ffd296', '#a55a4b',
];

export type Lab = [number, number, number];

/** CIELAB (D65) of a `#RRGGBB` colour. */
export function labOf(hex: string): Lab {
  const n = parseInt(hex.slice(1, 7), 16);
  const linear = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const r = linear((n >> 16) & 255);
  const g = linear((n >> 8) & 255);
  const b = linear(n & 255);
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const x = f((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047);
  const y = f(0.2126729 * r + 0.7151522 * g + 0.072175 * b);
  const z = f((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

/** The CIEDE2000 colour difference of two `#RRGGBB` colours (about 2.3 is just noticeable). */
export const colorDistance = (first: string, second: string): number => deltaE2000(labOf(first), labOf(second));

/** CIEDE2000 (Sharma, Wu and Dalal 2005) of two CIELAB colours. */
export function deltaE2000([L1, a1, b1]: Lab, [L2, a2, b2]: Lab): number {
  const rad = Math.PI / 180;
  const meanC = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const g = 0.5 * (1 - Math.sqrt(meanC ** 7 / (meanC ** 7 + 25 ** 7)));
  const a1p = (1 + g) * a1;
  const a2p = (1 + g) * a2;
  const C1 = Math.hypot(a1p, b1);
  const C2 = Math.hypot(a2p, b2);
  const hue = (b: number, a: number) => (b === 0 && a === 0 ? 0 : (Math.atan2(b, a) / rad + 360) % 360);
  const h1 = hue(b1, a1p);
  const h2 = hue(b2, a2p);
  let dh = 0;
  if (C1 * C2 !== 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    else if (dh < -180) dh += 360;
  }
  const dH = 2 * Math.sqrt(C1 * C2) * Math.sin((dh / 2) * rad);
  const L = (L1 + L2) / 2;
  const C = (C1 + C2) / 2;
  let h = h1 + h2;
  if (C1 * C2 !== 0) {
    if (Math.abs(h1 - h2) > 180) h += h < 360 ? 360 : -360;
    h /= 2;
  }
  const t = 1 - 0.17 * Math.cos((h - 30) * rad) + 0.24 * Math.cos(2 * h * rad) + 0.32 * Math.cos((3 * h + 6) * rad) - 0.2 * Math.cos((4 * h - 63) * rad);
  const rotation = -Math.sin(60 * Math.exp(-(((h - 275) / 25) ** 2)) * rad) * 2 * Math.sqrt(C ** 7 / (C ** 7 + 25 ** 7));
  const sL = 1 + (0.015 * (L - 50) ** 2) / Math.sqrt(20 + (L - 50) ** 2);
  const sC = 1 + 0.045 * C;
  const sH = 1 + 0.015 * C * t;
  const dL = (L2 - L1) / sL;
  const dC = (C2 - C1) / sC;
  const dHs = dH / sH;
  return Math.sqrt(dL ** 2 + dC ** 2 + dHs ** 2 + rotation * dC * dHs);
}

/** Two colours closer than this are taken for the same at a glance, on a shape over a photograph. */
export const TOO_CLOSE = 12;

/**
 * The colour for a new class, given the colours the project's classes have: the first palette colour
 * clearly apart from all of them, else (32 taken) the palette colour farthest from its nearest.
 */
export function nextClassColor(used: Iterable<string>): string {
  const taken = [...used].filter((c) => /^#[0-9a-f]{6}$/i.test(c));
  let best = CLASS_PALETTE[0]!;
  let bestDistance = -1;
  for (const candidate of CLASS_PALETTE) {
    const nearest = Math.min(Infinity, ...taken.map((c) => colorDistance(candidate, c)));
    if (nearest >= TOO_CLOSE) return candidate;
    if (nearest > bestDistance) [best, bestDistance] = [candidate, nearest];
  }
  return best;
}

/**
 * A source of colours for classes created one after another (an import's labels, in order): each
 * takes nextClassColor of those the project had and those handed out before it.
 */
export function classColorSource(used: Iterable<string> = []): (given?: string) => string {
  const taken = [...used];
  return (given) => {
    const color = given ?? nextClassColor(taken);
    taken.push(color);
    return color;
  };
}
