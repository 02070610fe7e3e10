// A corpus for near-duplicate detection, drawn with sharp: distinct pictures of varied content
// (shapes, gradients, noise textures, mixes) and, of each, the copies a dataset picks up by accident:
// resized, recompressed as JPEG, slightly cropped, brightened or darkened.
import sharp from 'sharp';
import { mulberry32 } from '../../src/seeded-random.ts';

/** The same corpus on every run. */
const random = mulberry32;

const colour = (next: () => number): string => `rgb(${Math.floor(next() * 256)},${Math.floor(next() * 256)},${Math.floor(next() * 256)})`;

function shapes(next: () => number, width: number, height: number, count: number): string {
  let svg = '';
  for (let i = 0; i < count; i += 1) {
    const x = next() * width;
    const y = next() * height;
    const size = (0.08 + next() * 0.3) * Math.min(width, height);
    const kind = Math.floor(next() * 3);
    if (kind === 0) svg += `<rect x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size * (0.5 + next())}" fill="${colour(next)}" transform="rotate(${next() * 90} ${x} ${y})"/>`;
    else if (kind === 1) svg += `<circle cx="${x}" cy="${y}" r="${size / 2}" fill="${colour(next)}"/>`;
    else svg += `<polygon points="${x},${y - size} ${x + size},${y + size / 2} ${x - size},${y + size / 2}" fill="${colour(next)}"/>`;
  }
  return svg;
}

function gradient(next: () => number, id: string): string {
  const angle = next() * 360;
  const count = 3 + Math.floor(next() * 3);
  const stops = Array.from({ length: count }, (_, i) => `<stop offset="${i / (count - 1)}" stop-color="${colour(next)}"/>`).join('');
  return `<linearGradient id="${id}" gradientTransform="rotate(${angle} 0.5 0.5)">${stops}</linearGradient>`;
}

/** Random blotches: noise drawn small and enlarged, so it survives being made smaller. */
async function noiseTexture(next: () => number, width: number, height: number): Promise<Buffer> {
  const cells = 6 + Math.floor(next() * 10);
  const small = Buffer.alloc(cells * cells * 3);
  for (let i = 0; i < small.length; i += 1) small[i] = Math.floor(next() * 256);
  return sharp(small, { raw: { width: cells, height: cells, channels: 3 } }).resize(width, height, { kernel: 'cubic' }).png().toBuffer();
}

/** Distinct picture number `n` (PNG), one of four kinds in turn. */
export async function distinctPicture(n: number): Promise<Buffer> {
  const next = random(1000 + n);
  const width = 480 + Math.floor(next() * 320);
  const height = 360 + Math.floor(next() * 240);
  const kind = n % 4;
  if (kind === 2) {
    const texture = await noiseTexture(next, width, height);
    if (next() < 0.5) return texture;
    const over = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes(next, width, height, 3)}</svg>`);
    return sharp(texture).composite([{ input: over }]).png().toBuffer();
  }
  const background = kind === 0 ? `<rect width="100%" height="100%" fill="${colour(next)}"/>` : `<defs>${gradient(next, 'g')}</defs><rect width="100%" height="100%" fill="url(#g)"/>`;
  const count = kind === 0 ? 4 + Math.floor(next() * 8) : kind === 1 ? Math.floor(next() * 3) : 2 + Math.floor(next() * 6);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${background}${shapes(next, width, height, count)}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

export interface Transform {
  name: string;
  apply(image: Buffer): Promise<Buffer>;
}

async function sizeOf(image: Buffer): Promise<{ width: number; height: number }> {
  const { width, height } = await sharp(image).metadata();
  return { width: width!, height: height! };
}

const cropped = (left: number, top: number, right: number, bottom: number) => async (image: Buffer) => {
  const { width, height } = await sizeOf(image);
  const l = Math.round(width * left);
  const t = Math.round(height * top);
  return sharp(image)
    .extract({ left: l, top: t, width: width - l - Math.round(width * right), height: height - t - Math.round(height * bottom) })
    .png()
    .toBuffer();
};

const resized = (scale: number) => async (image: Buffer) => {
  const { width } = await sizeOf(image);
  return sharp(image).resize(Math.round(width * scale)).png().toBuffer();
};

/** The copies made of each distinct picture: what issue's list names, at its bounds. */
export const TRANSFORMS: Transform[] = [
  { name: 'resize 50%', apply: resized(0.5) },
  { name: 'resize 30%', apply: resized(0.3) },
  { name: 'resize 150%', apply: resized(1.5) },
  { name: 'JPEG q40', apply: (image) => sharp(image).jpeg({ quality: 40 }).toBuffer() },
  { name: 'JPEG q70', apply: (image) => sharp(image).jpeg({ quality: 70 }).toBuffer() },
  { name: 'JPEG q95', apply: (image) => sharp(image).jpeg({ quality: 95 }).toBuffer() },
  { name: 'crop 5% left and top', apply: cropped(0.05, 0.05, 0, 0) },
  { name: 'crop 5% right', apply: cropped(0, 0, 0.05, 0) },
  { name: 'crop 2.5% each side', apply: cropped(0.025, 0.025, 0.025, 0.025) },
  { name: 'brightness +10%', apply: (image) => sharp(image).linear(1.1, 0).png().toBuffer() },
  { name: 'brightness −10%', apply: (image) => sharp(image).linear(0.9, 0).png().toBuffer() },
  { name: 'resize 50% and JPEG q60', apply: async (image) => sharp(await resized(0.5)(image)).jpeg({ quality: 60 }).toBuffer() },
];

export interface CorpusImage {
  /** The distinct picture it was made from. */
  source: number;
  transform: string;
  bytes: Buffer;
}

/** `count` distinct pictures, each followed by its transformed copies. */
export async function nearDuplicateCorpus(count: number): Promise<CorpusImage[]> {
  const images: CorpusImage[] = [];
  for (let n = 0; n < count; n += 1) {
    const original = await distinctPicture(n);
    images.push({ source: n, transform: 'original', bytes: original });
    for (const t of TRANSFORMS) images.push({ source: n, transform: t.name, bytes: await t.apply(original) });
  }
  return images;
}
