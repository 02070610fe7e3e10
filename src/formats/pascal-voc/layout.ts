// A Pascal VOC import by its paths: XMLs paired with images, ImageSets split lists as datasets, the
// instance masks of SegmentationObject/ and the class masks of SegmentationClass/.
import type { FormatWarning } from '../canonical.ts';

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
 * Pairs images with XMLs (see pairXmls) and masks, and puts them in one dataset per split list (an
 * image in several lists is in each); without lists, or for an image no list names, the dataset is
 * `ds0`. The warnings name each XML that was paired with no image.
 */
export function planVoc(
  imagePaths: readonly string[],
  xmls: readonly { path: string; filename: string | null }[],
  maskPaths: readonly string[],
  splits: readonly { name: string; ids: string[] }[],
): { datasets: VocDataset[]; warnings: FormatWarning[] } {
  const images = imagePaths.filter((p) => !isMaskPath(p));
  const { xmlOf, warnings } = pairXmls(images, xmls);
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
  return { datasets: [...datasets.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), warnings };
}

/**
 * The XML of each image. VOC's own tools find an annotation's image by the XML's name (the image id:
 * `Annotations/<id>.xml` → `JPEGImages/<id>.jpg`), so that comes first, then the image `<filename>`
 * names. Only when neither matches exactly are names compared without case: exports made on
 * case-insensitive disks pair `0af.xml` with `0AF.jpg` there. Each round pairs only the XMLs the
 * rounds before found no candidate for. Among several images of the name, the one beside the XML (or
 * in the `JPEGImages` folder beside its own) wins, and among several there the one `<filename>`
 * names; an XML that still has several is ambiguous and paired with none. An image gets one XML, an
 * XML one image; every XML left without an image is a warning.
 */
function pairXmls(images: readonly string[], xmls: readonly { path: string; filename: string | null }[]): { xmlOf: Map<string, string>; warnings: FormatWarning[] } {
  const folded = (p: string) => p.toLowerCase();
  const byStem = groupBy(images, stemOf);
  const byName = groupBy(images, baseName);
  const byFoldedStem = groupBy(images, (p) => folded(stemOf(p)));
  const byFoldedName = groupBy(images, (p) => folded(baseName(p)));
  const rounds: ((xml: { path: string; filename: string | null }) => string[] | undefined)[] = [
    (xml) => byStem.get(stemOf(xml.path)),
    (xml) => (xml.filename ? byName.get(baseName(xml.filename)) : undefined),
    (xml) => byFoldedStem.get(folded(stemOf(xml.path))),
    (xml) => (xml.filename ? byFoldedName.get(folded(baseName(xml.filename))) : undefined),
  ];
  const xmlOf = new Map<string, string>();
  const warnings: FormatWarning[] = [];
  let left = [...xmls];
  for (const candidatesOf of rounds) {
    const next = [];
    for (const xml of left) {
      const candidates = candidatesOf(xml);
      if (!candidates?.length) {
        next.push(xml);
        continue;
      }
      const image = chooseImage(xml, candidates);
      const other = image === null ? undefined : xmlOf.get(image);
      if (image === null) {
        const shown = candidates.slice(0, 3).join(', ') + (candidates.length > 3 ? ', …' : '');
        warnings.push({ path: xml.path, message: `it matches ${candidates.length} uploaded images (${shown}) and which is its own cannot be told, so it is paired with none; its objects are not imported` });
      } else if (other !== undefined) {
        warnings.push({ path: xml.path, message: `its image ${image} is already paired with ${other}; its objects are not imported` });
      } else xmlOf.set(image, xml.path);
    }
    left = next;
  }
  for (const xml of left) {
    const named = xml.filename ? ` or its <filename> ${JSON.stringify(xml.filename)}` : '';
    warnings.push({ path: xml.path, message: `no uploaded image matches its name${named}; its objects are not imported` });
  }
  return { xmlOf, warnings };
}

/** The one image of `candidates` an XML belongs to (see pairXmls), or null when several are as likely. */
function chooseImage(xml: { path: string; filename: string | null }, candidates: readonly string[]): string | null {
  const root = dirOf(dirOf(xml.path));
  const jpegImages = root ? `${root}/JPEGImages` : 'JPEGImages';
  const beside = candidates.filter((p) => dirOf(p) === dirOf(xml.path));
  const inJpegImages = candidates.filter((p) => dirOf(p) === jpegImages);
  let likely = beside.length > 0 ? beside : inJpegImages.length > 0 ? inJpegImages : candidates;
  if (likely.length > 1 && xml.filename) {
    const name = baseName(xml.filename);
    const named = likely.filter((p) => baseName(p) === name);
    likely = named.length > 0 ? named : likely.filter((p) => baseName(p).toLowerCase() === name.toLowerCase());
  }
  return likely.length === 1 ? likely[0]! : null;
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
