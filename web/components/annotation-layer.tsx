// An image's objects as SVG in the image's own pixel coordinates: polygons (with their holes),
// rectangles, lines, points and bitmaps, each in its class's colour. The hovered object stands out.
import { useEffect, useState } from 'preact/hooks';
import type { AnnotationObject, ImageClass, Point } from '../api.ts';

export interface LayerProps {
  objects: AnnotationObject[];
  classes: Map<string, ImageClass>;
  hidden: Set<string>;
  hovered: number | null;
  onHover: (id: number | null) => void;
  /** Strokes keep this width on screen whatever the zoom. */
  scale: number;
  opacity: number;
  /** Makes the ids of the layer's masks unique in the page (several layers may show at once). */
  idPrefix: string;
}

const pointsText = (points: Point[]) => points.map(([x, y]) => `${x},${y}`).join(' ');
const ring = (points: Point[]) => (points.length ? `M${points.map(([x, y]) => `${x} ${y}`).join(' L')} Z` : '');

export function AnnotationLayer(props: LayerProps) {
  return (
    <g class="objects">
      {props.objects.map((object) => {
        const cls = props.classes.get(object.classTitle);
        if (props.hidden.has(object.classTitle)) return null;
        const color = cls?.color ?? '#ff00ff';
        const hovered = props.hovered === object.id;
        const common = {
          'data-object-id': object.id,
          class: `object${hovered ? ' hovered' : ''}`,
          stroke: color,
          'stroke-width': (hovered ? 3 : 1.5) / props.scale,
          'fill-opacity': (hovered ? Math.min(1, props.opacity + 0.3) : props.opacity),
          onPointerEnter: () => props.onHover(object.id),
          onPointerLeave: () => props.onHover(null),
        };
        return <Shape key={object.id} object={object} shape={cls?.shape ?? 'polygon'} color={color} common={common} scale={props.scale} maskId={`${props.idPrefix}-mask-${object.id}`} />;
      })}
    </g>
  );
}

function Shape(props: { object: AnnotationObject; shape: string; color: string; common: Record<string, unknown>; scale: number; maskId: string }) {
  const { object, color, common } = props;
  const { exterior, interior } = object.points;
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
      return exterior.map(([x, y], i) => <circle key={i} {...common} fill={color} cx={x} cy={y} r={5 / props.scale} />);
    default:
      // A polygon with holes is one path whose rings cut each other out (even-odd).
      return interior.length ? (
        <path {...common} fill={color} fill-rule="evenodd" d={[exterior, ...interior].map(ring).join(' ')} />
      ) : (
        <polygon {...common} fill={color} points={pointsText(exterior)} />
      );
  }
}

/** A bitmap (base64 of a zlib-compressed PNG) painted in the class's colour where its mask is set. */
function Bitmap(props: { bitmap: { origin: number[]; data: string }; color: string; common: Record<string, unknown>; maskId: string }) {
  const [mask, setMask] = useState<{ url: string; width: number; height: number } | null>(null);
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    void (async () => {
      const compressed = Uint8Array.from(atob(props.bitmap.data), (c) => c.charCodeAt(0));
      const png = await new Response(new Blob([compressed]).stream().pipeThrough(new DecompressionStream('deflate'))).blob();
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
    <g {...props.common}>
      <mask id={maskId} maskUnits="userSpaceOnUse" x={x} y={y} width={mask.width} height={mask.height}>
        <image href={mask.url} x={x} y={y} width={mask.width} height={mask.height} style={{ imageRendering: 'pixelated' }} />
      </mask>
      <rect x={x} y={y} width={mask.width} height={mask.height} fill={props.color} mask={`url(#${maskId})`} />
    </g>
  );
}
