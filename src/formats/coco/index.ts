// The COCO reader: pure functions from a parsed instances file to canonical objects per image.
export { CocoFormatError } from './errors.ts';
export { readCocoFile, cocoSubset, type CocoFile, type CocoImage } from './reader.ts';
export { decodeRle, decodeCompressedCounts, maskToBitmap, MAX_MASK_PIXELS, type Mask } from './mask.ts';
export { detect, imageCandidates } from './layout.ts';
