// GET /v2/images/overlays: what a gallery draws over a page of tiles, in one request.
import { Type } from 'typebox';
import { Point } from './resources.ts';

/** Images per request: a few screenfuls of tiles. */
export const MAX_OVERLAY_IMAGES = 200;

export const ImageOverlaysQuery = Type.Object(
  {
    ids: Type.String({
      pattern: `^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9}){0,${MAX_OVERLAY_IMAGES - 1}}$`,
      description: `image ids, comma-separated, at most ${MAX_OVERLAY_IMAGES}; every one must be an image of the caller’s team`,
    }),
  },
  { additionalProperties: false },
);

const OverlayObject = Type.Object({
  classTitle: Type.String(),
  bitmap: Type.Union([Type.Null(), Type.Object({ origin: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), data: Type.String() })]),
  points: Type.Object({ exterior: Type.Array(Point), interior: Type.Array(Type.Array(Point)) }),
});

export const ImageOverlays = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        id: Type.Integer(),
        objects: Type.Array(OverlayObject, { description: 'the annotation’s objects, without their descriptions and tags' }),
      }),
      { description: 'one per id asked, in the order asked (an id given twice is answered once)' },
    ),
  },
  { $id: 'ImageOverlays' },
);
