// The YOLO reader: dataset descriptions, label files and layout, as pure functions over text and paths.
export { YoloFormatError, readDataYaml, readObjData, readNamesFile, resolveEntry, type YoloConfig, type YoloSplit } from './config.ts';
export { readLabelFile, type LabelFile } from './labels.ts';
export { readDescription } from './description.ts';
export { detect, findDescriptions, labelFor, planYolo, splitListFiles, type YoloDataset, type YoloImage } from './layout.ts';
