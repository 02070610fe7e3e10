// Class names and colours of SegmentationClass masks: a `labelmap.txt` (`name:r,g,b:parts:actions`,
// as datumaro and CVAT write it), else the 21 classes of VOC 2012 in the VOC palette.
import type { FormatWarning } from '../canonical.ts';
import { vocColor } from './masks.ts';

export interface LabelColor {
  name: string;
  /** 0xRRGGBB */
  color: number;
}

const VOC_CLASSES = [
  'background', 'aeroplane', 'bicycle', 'bird', 'boat', 'bottle', 'bus', 'car', 'cat', 'chair', 'cow',
  'diningtable', 'dog', 'horse', 'motorbike', 'person', 'pottedplant', 'sheep', 'sofa', 'train', 'tvmonitor',
];

/** The labels of VOC 2012: index i has the palette colour of i. */
export const VOC_LABELS: readonly LabelColor[] = VOC_CLASSES.map((name, i) => ({ name, color: vocColor(i) }));

/** Pixels of these labels are no object: the background, and the border VOC draws around objects. */
export const isBackgroundLabel = (name: string): boolean => /^(background|ignored|void)$/i.test(name);

/**
 * Reads a labelmap. A label without a colour gets the palette colour of its line's position (so a
 * labelmap of bare names still decodes a VOC-palette mask); a bad line is a warning with its number.
 */
export function readLabelMap(text: string, path: string): { labels: LabelColor[]; warnings: FormatWarning[] } {
  const labels: LabelColor[] = [];
  const warnings: FormatWarning[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [name = '', rgb = ''] = line.split(':');
    if (name.trim() === '') return void warnings.push({ path, line: i + 1, message: 'a label needs a name before ":"; the line is ignored' });
    let color = vocColor(labels.length);
    if (rgb.trim() !== '') {
      const parts = rgb.split(',').map((v) => Number(v.trim()));
      if (parts.length !== 3 || !parts.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)) {
        return void warnings.push({ path, line: i + 1, message: `the colour "${rgb}" is not r,g,b of 0-255; the line is ignored` });
      }
      color = (parts[0]! << 16) | (parts[1]! << 8) | parts[2]!;
    }
    if (labels.some((l) => l.color === color)) {
      return void warnings.push({ path, line: i + 1, message: `label "${name.trim()}" has the colour of an earlier label; the line is ignored` });
    }
    labels.push({ name: name.trim(), color });
  });
  return { labels, warnings };
}

/** `#RRGGBB` of a 0xRRGGBB colour. */
export const hexColor = (color: number): string => `#${color.toString(16).padStart(6, '0').toUpperCase()}`;
