// The Pascal VOC reader: annotation XMLs, split lists and instance masks into the canonical model.
export { VocFormatError, readVocXml, type VocAnnotation } from './reader.ts';
export { detect, isMaskPath, planVoc, readSplitList, splitFiles, type VocDataset, type VocImage } from './layout.ts';
export { readInstanceMask, vocColor } from './masks.ts';
export { parseXml, XmlError, type XmlElement } from './xml.ts';
