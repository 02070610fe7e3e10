// What flows through a DTL graph: one image at a time, with its annotation and its pixels. Layers are
// functions from an item to the items it becomes (none when dropped, several when split or
// multiplied); they do no I/O of their own. Pixels are decoded only when a layer needs them, and an
// item whose pixels no layer changed keeps its stored image's hash, so the save layer copies the
// original bytes instead of encoding them again.
import type { CanonicalAnnotation } from '../formats/canonical.ts';

/** Decoded pixels, row-major, `channels` bytes a pixel (3: RGB, 4: RGBA). */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

export interface DtlImage {
  /** The stored image's hash while no layer has changed its pixels; null after one has. */
  readonly hash: string | null;
  /** The pixels; decoded from the stored bytes on first use, and kept. */
  raw(): Promise<RawImage>;
}

export interface DtlItem {
  /** The image's name in its output dataset. */
  name: string;
  /** The output dataset's title (the data layer sets `<project>__<dataset>` unless told otherwise). */
  dataset: string;
  /** Where the image came from, for `if` conditions and the `dataset` layer's save_original rule. */
  source: { project: string; dataset: string };
  /** The annotation; its `size` is always the size of the item's pixels. */
  annotation: CanonicalAnnotation;
  image: DtlImage;
}

/** Pixels already in memory, as a layer that made them hands them on. */
export function rawImage(raw: RawImage): DtlImage {
  return { hash: null, raw: async () => raw };
}

/** The item with new pixels and the annotation that goes with them (its size set from the pixels). */
export function withPixels(item: DtlItem, raw: RawImage, annotation: CanonicalAnnotation): DtlItem {
  return { ...item, image: rawImage(raw), annotation: { ...annotation, size: { width: raw.width, height: raw.height } } };
}

/** The item with another annotation and the same pixels. */
export function withAnnotation(item: DtlItem, annotation: CanonicalAnnotation): DtlItem {
  return { ...item, annotation };
}

/** What a layer gets besides the item: randomness that is the same on every run of one graph. */
export interface LayerContext {
  /** Uniform in [0, 1), seeded by the graph's seed, the layer's index and the item's name. */
  random(): number;
}

/** A processing layer: an item in, the items it becomes out. */
export type LayerFunction<S> = (item: DtlItem, settings: S, context: LayerContext) => DtlItem[] | Promise<DtlItem[]>;
