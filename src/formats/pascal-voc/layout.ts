// A Pascal VOC import by its paths: XMLs paired with images, ImageSets split lists as datasets, the
// instance masks of SegmentationObject/ and the class masks of SegmentationClass/.
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const stemOf = (p: string) => baseName(p).replace(/\.[^.]*$/, '');
const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

export interface VocImage {
  name: string;
  imagePath: string;
  xmlPath: string | null;
  /** SegmentationObject/<id>.png, if uploaded. */
  maskPath: string | null;
  /** SegmentationClass/<id>.png, if uploaded. */
  classMaskPath: string | null;
}

export interface VocDataset {
  name: string;
  images: VocImage[];
}

export const isMaskPath = (p: string) => /(^|\/)Segmentation(Object|Class)\/[^/]+\.png$/i.test(p);

/** Whether the paths look like Pascal VOC: annotation XMLs. */
export function detect(paths: readonly string[]): boolean {
  return paths.some((p) => /\.xml$/i.test(p));
}

/**
 * The split lists among the paths: `ImageSets/Main/<split>.txt`, not the per-class `<class>_<split>.txt`
 * files; when Main has none, those of `ImageSets/Segmentation` (then Layout, Action).
 */
export function splitFiles(paths: readonly string[]): string[] {
  for (const folder of ['Main', 'Segmentation', 'Layout', 'Action']) {
    const inFolder = paths.filter((p) => new RegExp(`(^|/)ImageSets/${folder}/[^/]+\\.txt$`).test(p));
    const stems = new Set(inFolder.map(stemOf));
    const splits = inFolder.filter((p) => {
      const stem = stemOf(p);
      const cut = stem.lastIndexOf('_');
      return !(cut > 0 && (stems.has(stem.slice(cut + 1)) || ['train', 'val', 'trainval', 'test'].includes(stem.slice(cut + 1))));
    });
    // trainval is the union of train and val: with both present it would import every image twice.
    const names = new Set(splits.map(stemOf));
    const kept = names.has('train') && names.has('val') ? splits.filter((p) => stemOf(p) !== 'trainval') : splits;
    if (kept.length > 0) return kept.sort();
  }
  return [];
}

/** Image ids of a split list: the first word of each line. */
export function readSplitList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((id) => id !== '');
}

/**
 * Pairs images with XMLs (by `<filename>`, else by name without extension) and masks, and puts them
 * in one dataset per split list (an image in several lists is in each); without lists, or for an
 * image no list names, the dataset is `ds0`.
 */
export function planVoc(
  imagePaths: readonly string[],
  xmls: readonly { path: string; filename: string | null }[],
  maskPaths: readonly string[],
  splits: readonly { name: string; ids: string[] }[],
): VocDataset[] {
  const images = imagePaths.filter((p) => !isMaskPath(p));
  const byName = groupBy(images, baseName);
  const byStem = groupBy(images, stemOf);
  const xmlOf = new Map<string, string>();
  for (const xml of xmls) {
    const near = (list: string[] | undefined) => {
      if (!list?.length) return undefined;
      const root = dirOf(dirOf(xml.path));
      return list.find((p) => dirOf(p) === dirOf(xml.path)) ?? list.find((p) => dirOf(p) === (root ? `${root}/JPEGImages` : 'JPEGImages')) ?? list[0];
    };
    const image = near(xml.filename ? byName.get(baseName(xml.filename)) : undefined) ?? near(byStem.get(stemOf(xml.path)));
    if (image && !xmlOf.has(image)) xmlOf.set(image, xml.path);
  }
  const masks = new Map(maskPaths.filter((p) => /SegmentationObject\//i.test(p)).map((p) => [stemOf(p), p]));
  const classMasks = new Map(maskPaths.filter((p) => /SegmentationClass\//i.test(p)).map((p) => [stemOf(p), p]));
  const datasets = new Map<string, VocDataset>();
  const place = (name: string, imagePath: string) => {
    let dataset = datasets.get(name);
    if (!dataset) datasets.set(name, (dataset = { name, images: [] }));
    if (dataset.images.some((i) => i.name === baseName(imagePath))) return;
    dataset.images.push({ name: baseName(imagePath), imagePath, xmlPath: xmlOf.get(imagePath) ?? null, maskPath: masks.get(stemOf(imagePath)) ?? null, classMaskPath: classMasks.get(stemOf(imagePath)) ?? null });
  };
  for (const imagePath of [...images].sort()) {
    const listed = splits.filter((s) => s.ids.includes(stemOf(imagePath)));
    if (listed.length === 0) place('ds0', imagePath);
    for (const s of listed) place(s.name, imagePath);
  }
  return [...datasets.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The label map among the paths (`labelmap.txt`, the one nearest the root), or null. */
export function labelMapFile(paths: readonly string[]): string | null {
  const found = paths.filter((p) => baseName(p).toLowerCase() === 'labelmap.txt');
  return found.sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1))[0] ?? null;
}

function groupBy(paths: readonly string[], key: (p: string) => string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of paths) out.set(key(p), [...(out.get(key(p)) ?? []), p]);
  return out;
}
