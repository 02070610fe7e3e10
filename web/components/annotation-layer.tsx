// An image's objects as SVG in the image's own pixel coordinates: polygons (with their holes),
// rectangles, lines, points and bitmaps, each in its class's colour. The hovered object stands out.
// Built for a thousand objects: each shape is memoised on its own object (an edit elsewhere, a zoom
// or a pan leaves it alone), strokes keep their width on screen without knowing the zoom, shapes
// outside `within` are not in the page at all, and hover is one listener for the whole layer.
import { memo } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import type { ImageClass, Point } from '../api.ts';
import { maskCovers, maskPng, readMaskPixels } from '../editor/bitmap-mask.ts';
import { type Box, boxOf, boxesMeet } from '../editor/geometry.ts';

/** What the layer draws of an object; `key` (the editor's) names it when given, else `id`. */
export interface LayerObject {
  id?: number;
  key?: number;
  classTitle: string;
  bitmap: { origin: number[]; data: string } | null;
  points: { exterior: Point[]; interior: Point[][] };
}

export interface LayerProps {
  objects: readonly LayerObject[];
  classes: Map<string, ImageClass>;
  hidden: Set<string>;
  hovered: number | null;
  onHover: (id: number | null) => void;
  /** Kept for callers that know it; strokes and points keep their size on screen by themselves. */
  scale?: number;
  opacity: number;
  /** Makes the ids of the layer's masks unique in the page (several layers may show at once). */
  idPrefix: string;
  /** Only objects whose box meets this one (image pixels) are drawn; all when absent. */
  within?: Box | undefined;
  /** An object drawn by someone else (the editor draws the one it edits). */
  omit?: number | null | undefined;
}

export const objectName = (object: LayerObject): number => object.key ?? object.id ?? 0;

const pointsText = (points: Point[]) => points.map(([x, y]) => `${x},${y}`).join(' ');
const ring = (points: Point[]) => (points.length ? `M${points.map(([x, y]) => `${x} ${y}`).join(' L')} Z` : '');

/** Each object's box, worked out once per version of its points. */
const boxes = new WeakMap<object, Box>();
function boxOfObject(object: LayerObject): Box | null {
  if (object.bitmap) return null; // its size is the PNG's: always drawn
  let box = boxes.get(object.points);
  if (!box) boxes.set(object.points, (box = boxOf(object.points.exterior)));
  return box;
}

/** The layer's object under an event, by the name its shape carries. */
function objectUnder(target: EventTarget | null): number | null {
  const element = target instanceof Element ? target.closest('[data-key]') : null;
  return element ? Number(element.getAttribute('data-key')) : null;
}

/**
 * The topmost object of `within` drawn under the pointer. SVG hits a bitmap anywhere in its box, so a
 * bitmap counts only where its mask is set, and the pointer over an empty part of its box reaches what
 * lies beneath. A mask whose pixels are not read yet (they are read from the first time it is asked
 * for) counts by its box.
 */
export function objectAtPointer(event: { clientX: number; clientY: number }, objects: readonly LayerObject[], within: Element): number | null {
  for (const element of document.elementsFromPoint(event.clientX, event.clientY)) {
    const holder = element.closest('[data-key]');
    if (!holder || !within.contains(holder)) continue;
    const name = Number(holder.getAttribute('data-key'));
    const bitmap = holder.classList.contains('bitmap') ? objects.find((o) => objectName(o) === name)?.bitmap : null;
    if (bitmap && holder instanceof SVGGraphicsElement) {
      readMaskPixels(bitmap);
      const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(holder.getScreenCTM()!.inverse());
      if (maskCovers(bitmap, [at.x, at.y]) === false) continue;
    }
    return name;
  }
  return null;
}

export const AnnotationLayer = memo(function AnnotationLayer(props: LayerProps) {
  const { onHover } = props;
  // Over a bitmap the object hovered can change without leaving its shape (its mask's edge), so the
  // pointer's moves there are followed too; over any other shape, entering and leaving tell it all.
  const hoverAt = (event: PointerEvent) => {
    const overBitmap = event.target instanceof Element && event.target.closest('.bitmap') !== null;
    if (overBitmap) onHover(objectAtPointer(event, props.objects, event.currentTarget as Element));
    else if (event.type === 'pointerover') onHover(objectUnder(event.target));
  };
  return (
    <g
      class="objects"
      onPointerOver={hoverAt}
      onPointerMove={hoverAt}
      onPointerOut={(event) => {
        if (objectUnder(event.relatedTarget) === null) onHover(null);
      }}
    >
      {props.objects.map((object) => {
        const name = objectName(object);
        if (props.hidden.has(object.classTitle) || name === props.omit) return null;
        if (props.within) {
          const box = boxOfObject(object);
          if (box && !boxesMeet(box, props.within)) return null;
        }
        const cls = props.classes.get(object.classTitle);
        return (
          <Shape key={name} object={object} shape={cls?.shape ?? 'polygon'} color={cls?.color ?? '#ff00ff'} hovered={props.hovered === name} opacity={props.opacity} maskId={`${props.idPrefix}-mask-${name}`} />
        );
      })}
    </g>
  );
});

interface ShapeProps {
  object: LayerObject;
  shape: string;
  color: string;
  hovered: boolean;
  opacity: number;
  maskId: string;
  /** Extra class names (the editor's selected object). */
  extraClass?: string;
}

export const Shape = memo(function Shape(props: ShapeProps) {
  const { object, color, hovered } = props;
  const { exterior, interior } = object.points;
  const common = {
    'data-object-id': object.id,
    'data-key': objectName(object),
    class: `object${hovered ? ' hovered' : ''}${props.extraClass ? ` ${props.extraClass}` : ''}`,
    stroke: color,
    'stroke-width': hovered ? 3 : 1.5,
    'vector-effect': 'non-scaling-stroke',
    'fill-opacity': hovered ? Math.min(1, props.opacity + 0.3) : props.opacity,
  };
  if (object.bitmap) return <Bitmap bitmap={object.bitmap} color={color} common={common} maskId={props.maskId} />;
  switch (props.shape) {
    case 'rectangle': {
      const [x1 = 0, y1 = 0] = exterior[0] ?? [];
      const [x2 = 0, y2 = 0] = exterior[1] ?? [];
      return <rect {...common} fill={color} x={Math.min(x1, x2)} y={Math.min(y1, y2)} width={Math.abs(x2 - x1)} height={Math.abs(y2 - y1)} />;
    }
    case 'line':
      return <polyline {...common} fill="none" points={pointsText(exterior)} />;
    case 'point':
      // A dot of 10 screen pixels at any zoom: a round cap on a path of no length.
      return <path {...common} class={`${common.class} point`} fill="none" stroke-width={hovered ? 14 : 10} stroke-linecap="round" d={exterior.map(([x, y]) => `M${x} ${y} h0`).join(' ')} />;
    default:
      // A polygon with holes is one path whose rings cut each other out (even-odd).
      return interior.length ? (
        <path {...common} fill={color} fill-rule="evenodd" d={[exterior, ...interior].map(ring).join(' ')} />
      ) : (
        <polygon {...common} fill={color} points={pointsText(exterior)} />
      );
  }
});

/** A bitmap (base64 of a zlib-compressed PNG) painted in the class's colour where its mask is set. */
function Bitmap(props: { bitmap: { origin: number[]; data: string }; color: string; common: Record<string, unknown>; maskId: string }) {
  const [mask, setMask] = useState<{ url: string; width: number; height: number } | null>(null);
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    void (async () => {
      const png = await maskPng(props.bitmap.data);
      const bitmap = await createImageBitmap(png);
      url = URL.createObjectURL(new Blob([png], { type: 'image/png' }));
      if (live) setMask({ url, width: bitmap.width, height: bitmap.height });
      bitmap.close();
    })().catch(() => undefined);
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [props.bitmap.data]);
  if (!mask) return null;
  const [x = 0, y = 0] = props.bitmap.origin;
  const { maskId } = props;
  return (
    <g {...props.common} class={`${props.common.class as string} bitmap`}>
      <mask id={maskId} maskUnits="userSpaceOnUse" x={x} y={y} width={mask.width} height={mask.height}>
        <image href={mask.url} x={x} y={y} width={mask.width} height={mask.height} style={{ imageRendering: 'pixelated' }} />
      </mask>
      <rect x={x} y={y} width={mask.width} height={mask.height} fill={props.color} mask={`url(#${maskId})`} />
    </g>
  );
}
