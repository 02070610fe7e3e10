// The Pascal VOC reader: annotation XMLs, split lists, instance and class masks into the canonical model.
export { VocFormatError, readVocXml, type VocAnnotation } from './reader.ts';
export { detect, isMaskPath, labelMapFile, planVoc, readSplitList, splitFiles, type VocDataset, type VocImage } from './layout.ts';
export { readClassMask, readInstanceMask, vocColor } from './masks.ts';
export { VOC_LABELS, hexColor, isBackgroundLabel, readLabelMap, type LabelColor } from './labelmap.ts';
export { parseXml, XmlError, type XmlElement } from './xml.ts';
