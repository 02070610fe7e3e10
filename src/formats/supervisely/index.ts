// The Supervisely reader: pure functions from parsed JSON and relative paths to the canonical model.
export { SuperviselyFormatError } from './errors.ts';
export { parseProjectMeta, defaultClassColor, type ProjectMeta, type UnsupportedClass } from './meta-reader.ts';
export {
  parseAnnotation,
  MAX_OBJECTS_PER_ANNOTATION,
  MAX_POINTS_PER_OBJECT,
  type ParseAnnotationOptions,
  type ParsedAnnotation,
  type SkippedObject,
} from './annotation-reader.ts';
export { readMaskSize, decodeBitmap, isLegacyReadableMask, MAX_MASK_INFLATED_BYTES, type BitmapMask } from './bitmap.ts';
export { detect, hasSuperviselyFiles, imagesOnlyDataset, planProject, isImageName, type PlannedDataset, type PlannedImage, type ProjectPlan } from './layout.ts';
