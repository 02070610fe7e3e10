// The segment tool: prompts (a click includes, a shift- or right-click excludes, a drag draws a box)
// sent to the decoder worker, the mask it answers shown at each prompt, and Enter to turn the mask into
// objects of the chosen class: polygons with their holes, simplified to the tolerance, or a bitmap, by
// the class's shape. One edit, one step to undo.
import { useEffect, useRef, useState } from 'preact/hooks';
import { maskToPolygons } from '../../src/formats/mask-polygons.ts';
import type { Point } from '../api.ts';
import { maskOfPixels } from '../editor/bitmap-mask.ts';
import { type EditObject, type EditorDocument, addObject } from '../editor/document.ts';
import { type Shape, type Size, clampPoint } from '../editor/geometry.ts';
import { type SegmentMask, SegmentClient } from '../editor/segment-client.ts';
import type { PromptPoint } from '../editor/segment-messages.ts';

type Box = [number, number, number, number];

/** Pieces and holes of fewer mask pixels are the model's specks, left out of polygons. */
const MIN_PIECE = 16;

export interface SegmentToolProps {
  imageId: number;
  size: Size;
  active: boolean;
  classTitle: string | null;
  shapeOf: (title: string) => Shape | undefined;
  /** Douglas–Peucker tolerance in image pixels. */
  tolerance: number;
  /** The model (GET /v2/segment/models); null: the server's default. */
  model: string | null;
  scale: number;
  onEdit: (edit: (doc: EditorDocument) => EditorDocument, select?: 'added') => void;
  onNotice: (message: string) => void;
  onStatus: (message: string) => void;
}

export interface SegmentTool {
  down(p: [number, number], exclude: boolean): void;
  move(p: [number, number]): boolean;
  up(p: [number, number]): void;
  key(key: string): boolean;
  drawing: preact.JSX.Element | null;
}

export function useSegmentTool(props: SegmentToolProps): SegmentTool {
  const client = useRef<SegmentClient | null>(null);
  const [points, setPoints] = useState<PromptPoint[]>([]);
  const [box, setBox] = useState<Box | null>(null);
  // The drag is read from a ref: pointerup may come before the render after pointerdown.
  const [drag, setDragState] = useState<{ from: Point; to: Point; exclude: boolean } | null>(null);
  const dragNow = useRef<{ from: Point; to: Point; exclude: boolean } | null>(null);
  const setDrag = (next: { from: Point; to: Point; exclude: boolean } | null) => {
    dragNow.current = next;
    setDragState(next);
  };
  const [mask, setMask] = useState<{ mask: SegmentMask; url: string } | null>(null);
  const latest = useRef({ points, box });
  latest.current = { points, box };

  const ensureClient = () => (client.current ??= new SegmentClient(props.model ?? undefined));
  // Another model: another decoder and other embeddings.
  const model = useRef(props.model);
  if (model.current !== props.model) {
    model.current = props.model;
    client.current?.dispose();
    client.current = null;
  }

  // Choosing the tool starts loading the decoder and the image's embedding, so the first click is quick.
  useEffect(() => {
    if (!props.active) return;
    let live = true;
    props.onStatus('Segment: preparing the image…');
    ensureClient()
      .prepare(props.imageId)
      .then(
        () => live && props.onStatus('Segment: click inside an object (Shift or right click excludes, drag for a box), Enter to keep it'),
        (failure: Error) => live && props.onNotice(`Segment is unavailable: ${failure.message}`),
      );
    return () => {
      live = false;
    };
  }, [props.active, props.imageId, props.model]);

  // Another image, tool or model: the prompts were for what is gone.
  useEffect(() => clear(), [props.imageId, props.active, props.model]);
  useEffect(() => () => client.current?.dispose(), []);

  const clear = () => {
    latest.current = { points: [], box: null };
    setPoints([]);
    setBox(null);
    setDrag(null);
    showMask(null);
    client.current?.reset();
  };

  // The worker's picture of the mask (a PNG it made: nothing to encode here) shown as it is.
  const showMask = (next: SegmentMask | null) => {
    const url = next ? URL.createObjectURL(new Blob([next.picture as Uint8Array<ArrayBuffer>], { type: 'image/png' })) : null;
    setMask((old) => {
      if (old) URL.revokeObjectURL(old.url);
      return next && url ? { mask: next, url } : null;
    });
  };

  const run = (nextPoints: PromptPoint[], nextBox: Box | null) => {
    latest.current = { points: nextPoints, box: nextBox };
    setPoints(nextPoints);
    setBox(nextBox);
    if (nextPoints.length === 0 && !nextBox) {
      client.current?.reset();
      return showMask(null);
    }
    ensureClient()
      .decode(props.imageId, props.size, nextPoints, nextBox)
      .then(
        (answer) => {
          if (!answer) return; // overtaken by a later prompt
          showMask(answer);
          const threads = client.current?.threads ?? 1;
          props.onStatus(`Segment: mask in ${Math.round(answer.ms)} ms (${threads} ${threads === 1 ? 'thread' : 'threads'}); Enter keeps it, Escape starts again`);
        },
        (failure: Error) => props.onNotice(`Not segmented: ${failure.message}`),
      );
  };

  const commit = async () => {
    const title = props.classTitle;
    const found = mask?.mask;
    if (!title || !found) return;
    const shape = props.shapeOf(title);
    const blank = (exterior: Point[], interior: Point[][]): Omit<EditObject, 'key' | 'id'> => ({ classTitle: title, description: '', tags: [], bitmap: null, points: { exterior, interior } });
    if (shape === 'polygon') {
      const back = (ring: [number, number][]) => ring.map(([x, y]) => clampPoint([x / found.scale, y / found.scale], props.size));
      const polygons = maskToPolygons({ width: found.width, height: found.height, pixels: found.pixels }, { tolerance: props.tolerance * found.scale, minArea: MIN_PIECE });
      if (polygons.length === 0) return props.onNotice('The mask is empty: nothing to keep.');
      props.onEdit((doc) => polygons.reduce((d, p) => addObject(d, 'polygon', blank(back(p.exterior), p.interior.map(back))), doc), 'added');
    } else if (shape === 'bitmap') {
      const bitmap = await maskOfPixels(found.pixels, found.width, found.height, props.size);
      if (!bitmap) return props.onNotice('The mask is empty: nothing to keep.');
      props.onEdit((doc) => addObject(doc, 'bitmap', { ...blank([], []), bitmap }), 'added');
    } else {
      return props.onNotice('Segment makes polygons or bitmaps: choose a class of either shape.');
    }
    clear();
  };

  const tool: SegmentTool = {
    down(p, exclude) {
      const at = clampPoint(p, props.size);
      setDrag({ from: at, to: at, exclude });
    },
    move(p) {
      const drag = dragNow.current;
      if (!drag) return false;
      setDrag({ ...drag, to: clampPoint(p, props.size) });
      return true;
    },
    up(p) {
      const drag = dragNow.current;
      if (!drag) return;
      const to = clampPoint(p, props.size);
      const [fx = 0, fy = 0] = drag.from;
      const [tx = 0, ty = 0] = to;
      setDrag(null);
      const { points: now, box: nowBox } = latest.current;
      // A drag of a few screen pixels is a click.
      if (Math.abs(tx - fx) * props.scale >= 4 && Math.abs(ty - fy) * props.scale >= 4) {
        run(now, [Math.min(fx, tx), Math.min(fy, ty), Math.max(fx, tx), Math.max(fy, ty)]);
      } else run([...now, [fx, fy, !drag.exclude]], nowBox);
    },
    key(key) {
      if (key === 'Enter' && mask) {
        void commit();
        return true;
      }
      if (key === 'Escape' && (points.length || box || mask)) {
        clear();
        return true;
      }
      if (key === 'Backspace' && (points.length || box)) {
        if (points.length) run(points.slice(0, -1), box);
        else run(points, null);
        return true;
      }
      return false;
    },
    drawing: props.active ? (
      <g class="segment-prompts">
        {mask && <image class="segment-mask" href={mask.url} x={0} y={0} width={props.size.width} height={props.size.height} preserveAspectRatio="none" />}
        {box && <rect class="segment-box" x={box[0]} y={box[1]} width={box[2] - box[0]} height={box[3] - box[1]} vector-effect="non-scaling-stroke" />}
        {drag && drag.from !== drag.to && (
          <rect class="segment-box draft" x={Math.min(drag.from[0]!, drag.to[0]!)} y={Math.min(drag.from[1]!, drag.to[1]!)} width={Math.abs(drag.to[0]! - drag.from[0]!)} height={Math.abs(drag.to[1]! - drag.from[1]!)} vector-effect="non-scaling-stroke" />
        )}
        {points.map(([x, y, include], i) => (
          <circle key={i} class={include ? 'segment-point include' : 'segment-point exclude'} cx={x} cy={y} r={6 / props.scale} vector-effect="non-scaling-stroke" />
        ))}
      </g>
    ) : null,
  };
  return tool;
}
