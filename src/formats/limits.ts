// The limits of one image's annotation, which every reader enforces as it reads. A module of its own,
// with no imports, so the readers a browser runs (Pascal VOC, YOLO, the COCO index) can use it.

/** Objects an image may have. */
export const MAX_OBJECTS_PER_ANNOTATION = 10_000;
/** Points an object may have. */
export const MAX_POINTS_PER_OBJECT = 100_000;
