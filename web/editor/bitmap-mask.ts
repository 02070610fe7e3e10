// Brush and eraser strokes on a bitmap object's mask, in the browser: the mask (base64 of a
// zlib-compressed PNG, cropped to its box at `origin`) is drawn into a canvas with the stroke, read
// back as set / unset pixels and written again cropped to what is set, as the format stores it.
import type { Size } from './geometry.ts';

export interface Mask {
  origin: number[];
  data: string;
}

/** A stroke: the pointer's path in image pixels, the brush's radius, painting or erasing. */
export interface Stroke {
  points: number[][];
  radius: number;
  erase: boolean;
}

/** The largest mask side painted at once: a canvas far larger would take the tab's memory. */
const MAX_SIDE = 8192;

/** The PNG in a mask's `data` (base64 of zlib-compressed PNG bytes). */
export async function maskPng(data: string): Promise<Blob> {
  const compressed = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  return new Response(new Blob([compressed]).stream().pipeThrough(new DecompressionStream('deflate'))).blob();
}

async function decode(mask: Mask): Promise<ImageBitmap> {
  return createImageBitmap(await maskPng(mask.data));
}

/** Whether the RGBA pixel at byte `i` of a stored mask drawn into a canvas is set: opaque and not black. */
const isSetPixel = (d: Uint8ClampedArray, i: number): boolean => d[i + 3]! > 127 && d[i]! + d[i + 1]! + d[i + 2]! > 0;

async function encode(png: Blob): Promise<string> {
  const deflated = new Uint8Array(await new Response(png.stream().pipeThrough(new CompressionStream('deflate'))).arrayBuffer());
  let text = '';
  for (let i = 0; i < deflated.length; i += 0x8000) text += String.fromCharCode(...deflated.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The mask after the stroke; null when nothing is left set. */
export async function strokedMask(existing: Mask | null, stroke: Stroke, image: Size): Promise<Mask | null> {
  const old = existing ? await decode(existing) : null;
  const [ox = 0, oy = 0] = existing?.origin ?? [];
  // The box that holds the old mask and the stroke, inside the image.
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const [x = 0, y = 0] of stroke.points) {
    left = Math.min(left, x - stroke.radius);
    top = Math.min(top, y - stroke.radius);
    right = Math.max(right, x + stroke.radius);
    bottom = Math.max(bottom, y + stroke.radius);
  }
  if (old) {
    left = Math.min(left, ox);
    top = Math.min(top, oy);
    right = Math.max(right, ox + old.width);
    bottom = Math.max(bottom, oy + old.height);
  }
  left = Math.max(0, Math.floor(left));
  top = Math.max(0, Math.floor(top));
  right = Math.min(image.width, Math.ceil(right));
  bottom = Math.min(image.height, Math.ceil(bottom));
  const width = right - left;
  const height = bottom - top;
  if (width <= 0 || height <= 0) return existing;
  if (width > MAX_SIDE || height > MAX_SIDE) throw new Error(`a mask may be at most ${MAX_SIDE} pixels a side`);

  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  context.imageSmoothingEnabled = false;
  if (old) {
    context.drawImage(old, ox - left, oy - top);
    old.close();
    // A mask without alpha (black and white) is read by value: black is unset.
    const pixels = context.getImageData(0, 0, width, height);
    const d = pixels.data;
    for (let i = 0; i < d.length; i += 4) d[i + 3] = isSetPixel(d, i) ? 255 : 0;
    context.putImageData(pixels, 0, 0);
  }
  context.globalCompositeOperation = stroke.erase ? 'destination-out' : 'source-over';
  context.strokeStyle = context.fillStyle = '#ffffff';
  context.lineWidth = stroke.radius * 2;
  context.lineCap = context.lineJoin = 'round';
  context.beginPath();
  stroke.points.forEach(([x = 0, y = 0], i) => (i === 0 ? context.moveTo(x - left, y - top) : context.lineTo(x - left, y - top)));
  if (stroke.points.length === 1) {
    const [x = 0, y = 0] = stroke.points[0]!;
    context.arc(x - left, y - top, stroke.radius, 0, Math.PI * 2);
    context.fill();
  } else context.stroke();

  // Set where at least half covered; the new box is what is set.
  const pixels = context.getImageData(0, 0, width, height);
  const d = pixels.data;
  let minX = width;
  let minY = height;
  let maxX = -1;
  let maxY = -1;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      const set = d[i + 3]! > 127;
      d[i] = d[i + 1] = d[i + 2] = 255;
      d[i + 3] = set ? 255 : 0;
      if (set) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
    }
  }
  if (maxX < 0) return null;
  const cropped = new OffscreenCanvas(maxX - minX + 1, maxY - minY + 1);
  cropped.getContext('2d')!.putImageData(pixels, -minX, -minY);
  const png = await cropped.convertToBlob({ type: 'image/png' });
  return { origin: [left + minX, top + minY], data: await encode(png) };
}

/**
 * A bitmap object's mask from one byte a pixel (1 set) of `width` × `height`, drawn at the image's
 * size (a mask made at a smaller scale is scaled up, set where at least half covered); null when
 * nothing is set.
 */
export async function maskOfPixels(pixels: Uint8Array, width: number, height: number, image: Size): Promise<Mask | null> {
  const source = new OffscreenCanvas(width, height);
  const rgba = new ImageData(width, height);
  for (let i = 0; i < pixels.length; i++) if (pixels[i]) rgba.data.set([255, 255, 255, 255], i * 4);
  source.getContext('2d')!.putImageData(rgba, 0, 0);
  if (image.width > MAX_SIDE || image.height > MAX_SIDE) throw new Error(`a mask may be at most ${MAX_SIDE} pixels a side`);
  const full = new OffscreenCanvas(image.width, image.height);
  const context = full.getContext('2d', { willReadFrequently: true })!;
  context.drawImage(source, 0, 0, image.width, image.height);
  const d = context.getImageData(0, 0, image.width, image.height).data;
  let minX = image.width;
  let minY = image.height;
  let maxX = -1;
  let maxY = -1;
  const out = new ImageData(image.width, image.height);
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      const i = (y * image.width + x) * 4;
      if (d[i + 3]! <= 127) continue;
      out.data.set([255, 255, 255, 255], i);
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  if (maxX < 0) return null;
  const cropped = new OffscreenCanvas(maxX - minX + 1, maxY - minY + 1);
  cropped.getContext('2d')!.putImageData(out, -minX, -minY);
  return { origin: [minX, minY], data: await encode(await cropped.convertToBlob({ type: 'image/png' })) };
}

/** A mask's pixels, one byte each (1 set, 0 not), for telling whether a point is on its object. */
interface MaskPixels {
  width: number;
  height: number;
  set: Uint8Array;
}

// SVG hits a masked shape anywhere in its box, so picking a bitmap object needs its pixels. They are
// read once per mask (a new mask after an edit is a new object) and dropped with it.
const maskPixels = new WeakMap<Mask, MaskPixels | 'reading'>();

/** Starts reading the mask's pixels for maskCovers, once; a mask that cannot be read is picked by its box. */
export function readMaskPixels(mask: Mask): void {
  if (maskPixels.has(mask)) return;
  maskPixels.set(mask, 'reading');
  void decode(mask)
    .then((bitmap) => {
      const { width, height } = bitmap;
      const context = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
      context.drawImage(bitmap, 0, 0);
      bitmap.close();
      const d = context.getImageData(0, 0, width, height).data;
      const set = new Uint8Array(width * height);
      for (let p = 0, i = 0; p < set.length; p += 1, i += 4) set[p] = isSetPixel(d, i) ? 1 : 0;
      maskPixels.set(mask, { width, height, set });
    })
    .catch(() => maskPixels.delete(mask));
}

/** Whether the mask sets the image pixel under `point`; undefined while its pixels are not read yet. */
export function maskCovers(mask: Mask, [x = 0, y = 0]: readonly number[]): boolean | undefined {
  const pixels = maskPixels.get(mask);
  if (!pixels || pixels === 'reading') return undefined;
  const [ox = 0, oy = 0] = mask.origin;
  const column = Math.floor(x - ox);
  const row = Math.floor(y - oy);
  if (column < 0 || row < 0 || column >= pixels.width || row >= pixels.height) return false;
  return pixels.set[row * pixels.width + column] === 1;
}
