// The annotation's types, from the API's own schema, for the editor's pure modules: they are also
// compiled for Node (their unit tests), so they do not import api.ts and its DOM types.
import type { Static } from 'typebox';
import type { ImageAnnotation } from '../../src/http/schemas/image-annotation.ts';

export type Annotation = Static<typeof ImageAnnotation>;
export type AnnotationObject = Annotation['objects'][number];
export type Point = AnnotationObject['points']['exterior'][number];
