// A model's predictions over the image: dashed outlines in their class's colour, unfilled, so they
// read as suggestions beside the annotation's filled shapes. Bitmaps are outlined by their box.
import { useEffect, useState } from 'preact/hooks';
import type { ImageClass, Prediction } from '../api.ts';
import { maskPng } from '../editor/bitmap-mask.ts';

/** A predicted mask: its pixels faintly, its box dashed. */
function MaskOutline(props: { bitmap: { origin: number[]; data: string }; stroke: Record<string, unknown> }) {
  const [mask, setMask] = useState<{ url: string; width: number; height: number } | null>(null);
  useEffect(() => {
    let url = '';
    let live = true;
    void (async () => {
      const png = await maskPng(props.bitmap.data);
      const bitmap = await createImageBitmap(png);
      url = URL.createObjectURL(png);
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
  return (
    <g>
      <image href={mask.url} x={x} y={y} width={mask.width} height={mask.height} opacity={0.3} style={{ imageRendering: 'pixelated' }} />
      <rect {...props.stroke} x={x} y={y} width={mask.width} height={mask.height} />
    </g>
  );
}

export interface PredictionLayerProps {
  predictions: readonly Prediction[];
  classes: Map<string, ImageClass>;
  /** The prediction shown as picked in the list. */
  focused: number | null;
}

export function PredictionLayer(props: PredictionLayerProps) {
  return (
    <g class="predictions" aria-hidden="true">
      {props.predictions.map((p) => {
        const color = props.classes.get(p.classTitle)?.color ?? '#ffffff';
        const common = {
          key: p.index,
          'data-prediction': p.index,
          fill: 'none',
          stroke: color,
          'stroke-width': props.focused === p.index ? 3 : 2,
          'stroke-dasharray': '6 4',
          'vector-effect': 'non-scaling-stroke',
        };
        const [a, b] = p.points.exterior;
        if (p.geometryType === 'rectangle' && a && b) {
          return <rect {...common} x={Math.min(a[0]!, b[0]!)} y={Math.min(a[1]!, b[1]!)} width={Math.abs(b[0]! - a[0]!)} height={Math.abs(b[1]! - a[1]!)} />;
        }
        if (p.geometryType === 'bitmap' && p.bitmap) {
          const { key, ...stroke } = common;
          return <MaskOutline key={key} bitmap={p.bitmap} stroke={stroke} />;
        }
        const d = [p.points.exterior, ...p.points.interior].map((ring) => `M${ring.map(([x, y]) => `${x} ${y}`).join(' L')} Z`).join(' ');
        if (p.geometryType === 'line') return <path {...common} d={`M${p.points.exterior.map(([x, y]) => `${x} ${y}`).join(' L')}`} />;
        if (p.geometryType === 'point' && a) return <circle {...common} cx={a[0]} cy={a[1]} r={4} />;
        return <path {...common} d={d} fill-rule="evenodd" />;
      })}
    </g>
  );
}
