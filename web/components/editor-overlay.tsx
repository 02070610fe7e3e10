// The editor's drawing surface, over the objects layer: the selected object with its handles, and
// what the pointer is drawing now. A drag (a vertex, a corner, the whole object, a new rectangle, a
// brush stroke) lives here, in this component's own state, so only this component redraws while it
// lasts; the page gets one edit when the pointer is released, one step to undo.
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ImageClass, Point } from '../api.ts';
import { type Stroke, readMaskPixels, strokedMask } from '../editor/bitmap-mask.ts';
import {
  type EditObject,
  type EditorDocument,
  type RingRef,
  addHole,
  addObject,
  insertVertex,
  moveObject,
  moveVertex,
  removeVertex,
  setBitmap,
  setRectangle,
} from '../editor/document.ts';
import { type Shape as ShapeKind, clampPoint, nearestEdge, rectangleCorners, rectangleWithCorner, touches } from '../editor/geometry.ts';
import { Shape, objectAtPointer } from './annotation-layer.tsx';
import { useSegmentTool } from './segment-tool.tsx';

export type Tool = 'select' | 'rectangle' | 'polygon' | 'line' | 'point' | 'brush' | 'eraser' | 'hole' | 'segment';

export interface Selection {
  key: number;
  vertex?: { ring: RingRef; index: number } | undefined;
}

export type Edit = (doc: EditorDocument) => EditorDocument;

interface Props {
  doc: EditorDocument;
  selected: Selection | null;
  tool: Tool;
  /** The class new objects get. */
  classTitle: string | null;
  classes: Map<string, ImageClass>;
  /** Classes hidden by their toggles: their objects cannot be picked. */
  hidden: Set<string>;
  scale: number;
  opacity: number;
  brushRadius: number;
  /** The image being edited, for the segment tool's embedding. */
  imageId: number;
  /** The segment tool's simplification tolerance, in image pixels. */
  tolerance: number;
  /** The segment tool's model; null: the server's default. */
  segmentModel: string | null;
  svg: RefObject<SVGSVGElement | null>;
  /** The group drawn in image pixels: pointer positions are read through its transform. */
  group: RefObject<SVGGElement | null>;
  /** `added`: select the object the edit adds. */
  onEdit: (edit: Edit, select?: Selection | null | 'added') => void;
  onSelect: (selection: Selection | null) => void;
  onNotice: (message: string) => void;
  /** A passing word on what a tool is doing (not an error). */
  onStatus: (message: string) => void;
  /** Set to this overlay's handler of Enter, Escape and Backspace (true when it used the key). */
  keys: { current: (key: string) => boolean };
}

/** A drag under way; `now` is the document it would leave (the last one drawn), `to` where a rectangle ends. */
type Gesture =
  | { kind: 'move'; key: number; from: [number, number]; base: EditorDocument; moved: boolean; now?: EditorDocument }
  | { kind: 'vertex'; key: number; ring: RingRef; index: number; base: EditorDocument; now?: EditorDocument }
  | { kind: 'corner'; key: number; corner: number; base: EditorDocument; now?: EditorDocument }
  | { kind: 'rectangle'; from: Point; to: Point }
  | { kind: 'stroke'; points: Point[] };

/** How near (screen pixels) counts as on a vertex or an edge. */
const NEAR = 7;

export const shapeOfClass = (classes: Map<string, ImageClass>, title: string): ShapeKind | undefined => classes.get(title)?.shape as ShapeKind | undefined;

export function EditorOverlay(props: Props) {
  const gesture = useRef<Gesture | null>(null);
  // What the drag shows until it ends: the document as it would be, a rectangle, a stroke.
  const [draft, setDraft] = useState<{ doc?: EditorDocument; rectangle?: [Point, Point]; stroke?: Point[] } | null>(null);
  // A polygon, line or hole being clicked point by point, and where the pointer is.
  // The path is read from a ref: two clicks may come before the render between them.
  const [path, setPathState] = useState<Point[]>([]);
  const pathNow = useRef<Point[]>([]);
  const setPath = (next: Point[]) => {
    pathNow.current = next;
    setPathState(next);
  };
  const [cursor, setCursor] = useState<Point | null>(null);
  const [painting, setPainting] = useState(false);

  const size = props.doc.size;
  const shapeOf = (title: string) => shapeOfClass(props.classes, title);
  const segment = useSegmentTool({
    imageId: props.imageId,
    size,
    active: props.tool === 'segment',
    classTitle: props.classTitle,
    shapeOf,
    tolerance: props.tolerance,
    model: props.segmentModel,
    scale: props.scale,
    onEdit: props.onEdit,
    onNotice: props.onNotice,
    onStatus: props.onStatus,
  });
  const selectedObject = props.selected ? props.doc.objects.find((o) => o.key === props.selected!.key) : undefined;

  // A tool change drops what was half drawn, before any pointer event can reach the new tool.
  useLayoutEffect(() => {
    setPath([]);
    setDraft(null);
    gesture.current = null;
  }, [props.tool]);

  const at = (event: PointerEvent | MouseEvent): [number, number] => {
    const matrix = props.group.current!.getScreenCTM()!.inverse();
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix);
    return [p.x, p.y];
  };

  const finishPath = (points: Point[]) => {
    setPath([]);
    const title = props.classTitle;
    if (props.tool === 'hole') {
      if (!selectedObject) return props.onNotice('Select a polygon to cut a hole in.');
      const key = selectedObject.key;
      // A refused edit (too few points) is told by the page, which takes no step for it.
      props.onEdit((doc) => addHole(doc, key, shapeOf(selectedObject.classTitle) ?? 'polygon', points), { key });
      return;
    }
    if (!title) return;
    const kind = props.tool === 'line' ? 'line' : 'polygon';
    props.onEdit((doc) => addObject(doc, kind, blankObject(title, points)), 'added');
  };

  const paint = async (points: Point[]) => {
    const title = props.classTitle;
    const erase = props.tool === 'eraser';
    const target = selectedObject?.bitmap && (erase || selectedObject.classTitle === title) ? selectedObject : undefined;
    if (erase && !target) {
      props.onNotice('Select a bitmap object to erase from.');
      return;
    }
    const stroke: Stroke = { points, radius: props.brushRadius, erase };
    setPainting(true);
    try {
      const mask = await strokedMask(target?.bitmap ?? null, stroke, size);
      if (target) props.onEdit((doc) => setBitmap(doc, target.key, mask), mask ? { key: target.key } : null);
      else if (mask && title) {
        props.onEdit((doc) => addObject(doc, 'bitmap', { ...blankObject(title, []), bitmap: mask }), 'added');
      }
    } catch (failure) {
      props.onNotice(`Not painted: ${(failure as Error).message}.`);
    } finally {
      setPainting(false);
    }
  };

  const onPointerDown = (event: PointerEvent) => {
    if (props.tool === 'segment' && (event.button === 0 || event.button === 2)) {
      event.stopPropagation();
      event.preventDefault();
      props.svg.current!.setPointerCapture(event.pointerId);
      segment.down(at(event), event.shiftKey || event.button === 2);
      return;
    }
    if (event.button !== 0) return;
    const p = at(event);
    const tolerance = NEAR / props.scale;
    const take = () => {
      event.stopPropagation();
      event.preventDefault();
      props.svg.current!.setPointerCapture(event.pointerId);
    };
    switch (props.tool) {
      case 'select': {
        const handle = (event.target as Element).closest?.('[data-handle]');
        if (handle && selectedObject) {
          take();
          const [kind, ringText, indexText] = handle.getAttribute('data-handle')!.split(':');
          const index = Number(indexText);
          const ring: RingRef = ringText === 'e' ? 'exterior' : Number(ringText);
          const shape = shapeOf(selectedObject.classTitle) ?? 'polygon';
          if (kind === 'corner') {
            gesture.current = { kind: 'corner', key: selectedObject.key, corner: index, base: props.doc };
          } else if (event.altKey) {
            gesture.current = null;
            props.onEdit((doc) => removeVertex(doc, selectedObject.key, shape, ring, index), { key: selectedObject.key });
          } else {
            gesture.current = { kind: 'vertex', key: selectedObject.key, ring, index, base: props.doc };
            props.onSelect({ key: selectedObject.key, vertex: { ring, index } });
          }
          return;
        }
        // On an edge of the selected polygon or line: a new vertex there, dragged at once.
        if (selectedObject && !selectedObject.bitmap) {
          const shape = shapeOf(selectedObject.classTitle);
          if (shape === 'polygon' || shape === 'line') {
            const rings: [RingRef, Point[]][] = [['exterior', selectedObject.points.exterior], ...selectedObject.points.interior.map((h, i): [RingRef, Point[]] => [i, h])];
            for (const [ring, points] of rings) {
              const edge = nearestEdge(points, p, shape === 'polygon', tolerance);
              if (!edge) continue;
              take();
              const base = insertVertex(props.doc, selectedObject.key, shape, ring, edge.at, edge.point);
              gesture.current = { kind: 'vertex', key: selectedObject.key, ring, index: edge.at, base };
              setDraft({ doc: base });
              props.onSelect({ key: selectedObject.key, vertex: { ring, index: edge.at } });
              return;
            }
          }
        }
        const key = objectAtPointer(event, props.doc.objects, props.svg.current!) ?? thinObjectNear(p, tolerance);
        if (key === null) {
          // Empty space: nothing selected, and the drag pans the view.
          if (props.selected) props.onSelect(null);
          return;
        }
        take();
        if (key !== props.selected?.key) props.onSelect({ key });
        gesture.current = { kind: 'move', key, from: p, base: props.doc, moved: false };
        return;
      }
      case 'rectangle':
        take();
        gesture.current = { kind: 'rectangle', from: clampPoint(p, size), to: clampPoint(p, size) };
        setDraft({ rectangle: [clampPoint(p, size), clampPoint(p, size)] });
        return;
      case 'point': {
        take();
        const title = props.classTitle;
        if (!title) return;
        const points = [clampPoint(p, size)];
        props.onEdit((doc) => addObject(doc, 'point', blankObject(title, points)), 'added');
        return;
      }
      case 'brush':
      case 'eraser':
        take();
        if (painting) return;
        gesture.current = { kind: 'stroke', points: [clampPoint(p, size)] };
        setDraft({ stroke: [clampPoint(p, size)] });
        return;
      case 'polygon':
      case 'line':
      case 'hole': {
        take();
        const path = pathNow.current;
        const point = clampPoint(p, size);
        const closing = props.tool !== 'line' && path.length >= 3 && Math.hypot(path[0]![0]! - p[0], path[0]![1]! - p[1]) <= tolerance;
        if (closing) return finishPath(path);
        // A double click ends the path at the point its first click added.
        if (event.detail >= 2 && path.length > 0) return finishPath(path);
        setPath([...path, point]);
        setCursor(point);
        return;
      }
    }
  };

  // The masks' pixels are read ahead, so a click on a bitmap is told from one beside its mask at once.
  useEffect(() => {
    for (const object of props.doc.objects) if (object.bitmap) readMaskPixels(object.bitmap);
  }, [props.doc.objects]);

  /** A line or point within reach of p: their strokes are thin to hit exactly. The topmost wins. */
  const thinObjectNear = (p: [number, number], tolerance: number): number | null => {
    const objects = props.doc.objects;
    for (let i = objects.length - 1; i >= 0; i -= 1) {
      const o = objects[i]!;
      const shape = shapeOf(o.classTitle);
      if ((shape === 'line' || shape === 'point') && !props.hidden.has(o.classTitle) && touches(shape, o.points, p, tolerance)) return o.key;
    }
    return null;
  };

  const onPointerMove = (event: PointerEvent) => {
    const g = gesture.current;
    const p = at(event);
    if (props.tool === 'segment') {
      if (segment.move(p)) event.stopPropagation();
      return;
    }
    if (!g) {
      if (pathNow.current.length) setCursor(clampPoint(p, size));
      return;
    }
    event.stopPropagation();
    switch (g.kind) {
      case 'move': {
        const dx = p[0] - g.from[0];
        const dy = p[1] - g.from[1];
        // A click that barely moves only selects.
        if (!g.moved && Math.hypot(dx, dy) * props.scale < 3) return;
        g.moved = true;
        g.now = moveObject(g.base, g.key, dx, dy);
        return setDraft({ doc: g.now });
      }
      case 'vertex':
        g.now = moveVertex(g.base, g.key, g.ring, g.index, p);
        return setDraft({ doc: g.now });
      case 'corner': {
        const object = g.base.objects.find((o) => o.key === g.key)!;
        const [a, b] = rectangleWithCorner(object.points.exterior, g.corner, p, size);
        g.now = setRectangle(g.base, g.key, a!, b!);
        return setDraft({ doc: g.now });
      }
      case 'rectangle':
        g.to = clampPoint(p, size);
        return setDraft({ rectangle: [g.from, g.to] });
      case 'stroke':
        g.points.push(clampPoint(p, size));
        return setDraft({ stroke: [...g.points] });
    }
  };

  const onPointerUp = (event: PointerEvent) => {
    if (props.tool === 'segment') {
      event.stopPropagation();
      segment.up(at(event));
      return;
    }
    const g = gesture.current;
    if (!g) return;
    gesture.current = null;
    event.stopPropagation();
    setDraft(null);
    switch (g.kind) {
      case 'move':
      case 'vertex':
      case 'corner': {
        const final = g.now;
        if (final && final !== g.base) props.onEdit((doc) => (doc === props.doc ? final : doc));
        else if (g.kind === 'vertex' && g.base !== props.doc) props.onEdit(() => g.base); // a vertex added and left where it was
        return;
      }
      case 'rectangle': {
        const { from, to } = g;
        const title = props.classTitle;
        // A click without a drag draws nothing.
        if (!title || Math.abs(from[0]! - to[0]!) * props.scale < 3 || Math.abs(from[1]! - to[1]!) * props.scale < 3) return;
        props.onEdit((doc) => addObject(doc, 'rectangle', blankObject(title, [from, to])), 'added');
        return;
      }
      case 'stroke':
        void paint(g.points);
        return;
    }
  };

  // One set of listeners on the drawing; each calls the handler of the latest render.
  // The segment tool takes the right button for an excluding click: no context menu over the image.
  const onContextMenu = (event: MouseEvent) => {
    if (props.tool === 'segment') event.preventDefault();
  };
  const handlers = useRef({ onPointerDown, onPointerMove, onPointerUp, onContextMenu });
  handlers.current = { onPointerDown, onPointerMove, onPointerUp, onContextMenu };
  useEffect(() => {
    const svg = props.svg.current!;
    const down = (e: PointerEvent) => handlers.current.onPointerDown(e);
    const move = (e: PointerEvent) => handlers.current.onPointerMove(e);
    const up = (e: PointerEvent) => handlers.current.onPointerUp(e);
    const menu = (e: MouseEvent) => handlers.current.onContextMenu(e);
    svg.addEventListener('contextmenu', menu);
    svg.addEventListener('pointerdown', down);
    svg.addEventListener('pointermove', move);
    svg.addEventListener('pointerup', up);
    svg.addEventListener('pointercancel', up);
    return () => {
      svg.removeEventListener('contextmenu', menu);
      svg.removeEventListener('pointerdown', down);
      svg.removeEventListener('pointermove', move);
      svg.removeEventListener('pointerup', up);
      svg.removeEventListener('pointercancel', up);
    };
  }, []);

  props.keys.current = (key: string) => {
    if (props.tool === 'segment') return segment.key(key);
    const path = pathNow.current;
    if (key === 'Enter' && path.length) {
      finishPath(path);
      return true;
    }
    if (key === 'Escape' && (path.length || gesture.current)) {
      setPath([]);
      setDraft(null);
      gesture.current = null;
      return true;
    }
    if (key === 'Backspace' && path.length) {
      setPath(path.slice(0, -1));
      return true;
    }
    return false;
  };

  const shown = draft?.doc && props.selected ? draft.doc.objects.find((o) => o.key === props.selected!.key) : selectedObject;
  const color = (title: string | null) => (title ? (props.classes.get(title)?.color ?? '#ff00ff') : '#ffffff');
  const handle = 8 / props.scale;
  return (
    <g class="editor-overlay">
      {segment.drawing}
      {shown && <Selected object={shown} shape={shapeOf(shown.classTitle) ?? 'polygon'} color={color(shown.classTitle)} opacity={props.opacity} handle={handle} vertex={props.selected?.vertex} />}
      {draft?.rectangle && <rect class="draft" x={Math.min(draft.rectangle[0][0]!, draft.rectangle[1][0]!)} y={Math.min(draft.rectangle[0][1]!, draft.rectangle[1][1]!)} width={Math.abs(draft.rectangle[1][0]! - draft.rectangle[0][0]!)} height={Math.abs(draft.rectangle[1][1]! - draft.rectangle[0][1]!)} stroke={color(props.classTitle)} fill={color(props.classTitle)} fill-opacity={0.2} vector-effect="non-scaling-stroke" />}
      {draft?.stroke && (
        <polyline class="draft" points={draft.stroke.map(([x, y]) => `${x},${y}`).join(' ')} fill="none" stroke={props.tool === 'eraser' ? '#ffffff' : color(props.classTitle)} stroke-opacity={0.6} stroke-width={props.brushRadius * 2} stroke-linecap="round" stroke-linejoin="round" />
      )}
      {path.length > 0 && (
        <g class="draft">
          <polyline points={[...path, ...(cursor ? [cursor] : [])].map(([x, y]) => `${x},${y}`).join(' ')} fill="none" stroke={props.tool === 'hole' ? '#ffffff' : color(props.classTitle)} stroke-width={2} vector-effect="non-scaling-stroke" stroke-dasharray="6 3" />
          {path.map(([x = 0, y = 0], i) => (
            <rect key={i} class={i === 0 ? 'handle first' : 'handle'} x={x - handle / 2} y={y - handle / 2} width={handle} height={handle} vector-effect="non-scaling-stroke" />
          ))}
        </g>
      )}
    </g>
  );
}

const blankObject = (classTitle: string, points: Point[]): Omit<EditObject, 'key' | 'id'> => ({ classTitle, description: '', tags: [], bitmap: null, points: { exterior: points, interior: [] } });

/** The selected object, drawn over the others, with a handle on each vertex (or corner). */
function Selected(props: { object: EditObject; shape: ShapeKind; color: string; opacity: number; handle: number; vertex: Selection['vertex'] }) {
  const { object, handle } = props;
  const square = (x: number, y: number, name: string, active: boolean) => (
    <rect key={name} class={active ? 'handle active' : 'handle'} data-handle={name} x={x - handle / 2} y={y - handle / 2} width={handle} height={handle} vector-effect="non-scaling-stroke" />
  );
  const handles = object.bitmap
    ? []
    : props.shape === 'rectangle'
      ? rectangleCorners(object.points.exterior).map(([x = 0, y = 0], i) => square(x, y, `corner:e:${i}`, false))
      : [
          ...object.points.exterior.map(([x = 0, y = 0], i) => square(x, y, `vertex:e:${i}`, props.vertex?.ring === 'exterior' && props.vertex.index === i)),
          ...object.points.interior.flatMap((hole, h) => hole.map(([x = 0, y = 0], i) => square(x, y, `vertex:${h}:${i}`, props.vertex?.ring === h && props.vertex.index === i))),
        ];
  return (
    <g class="selected">
      <Shape object={object} shape={props.shape} color={props.color} hovered={false} opacity={props.opacity} maskId={`edit-mask-${object.key}`} extraClass="selected" />
      {handles}
    </g>
  );
}
