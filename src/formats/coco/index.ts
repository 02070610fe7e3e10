// The COCO reader: a parsed instances file, or its bytes streamed in passes, to canonical objects per image.
export { CocoFormatError } from './errors.ts';
export { readCocoFile, type CocoFile } from './reader.ts';
export { cocoSubset, type CocoImage } from './image-index.ts';
export { decodeRle, decodeCompressedCounts, maskToBitmap, MAX_MASK_PIXELS, type Mask } from './mask.ts';
export { cocoSubsets, detect, imageCandidates, imageFinder, imagesNamed } from './layout.ts';
export { type ByteSource, type CocoIndexFile, type CocoSurvey, readCocoIndex, readCocoObjects, surveyCocoAnnotations } from './stream-reader.ts';
