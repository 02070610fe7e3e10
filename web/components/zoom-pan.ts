// Zoom at the cursor, pan by dragging, fit to the frame: a scale and an offset of the image inside a
// frame, kept in screen pixels.
import { useCallback, useRef, useState } from 'preact/hooks';

export interface View {
  scale: number;
  x: number;
  y: number;
}

const MIN_SCALE = 0.02;
const MAX_SCALE = 40;
const clamp = (scale: number) => Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));

/** The view that shows the whole image, centred, in a frame of the given size. */
export function fitted(frame: { width: number; height: number }, image: { width: number; height: number }): View {
  const scale = clamp(Math.min(frame.width / Math.max(1, image.width), frame.height / Math.max(1, image.height)));
  return { scale, x: (frame.width - image.width * scale) / 2, y: (frame.height - image.height * scale) / 2 };
}

/** Zooms by `factor` keeping the image point under (cx, cy) (frame pixels) where it is. */
export function zoomedAt(view: View, factor: number, cx: number, cy: number): View {
  const scale = clamp(view.scale * factor);
  const k = scale / view.scale;
  return { scale, x: cx - (cx - view.x) * k, y: cy - (cy - view.y) * k };
}

export function useZoomPan(initial: View) {
  const [view, setView] = useState(initial);
  const drag = useRef<{ pointer: number; x: number; y: number } | null>(null);

  const onWheel = useCallback((event: WheelEvent) => {
    event.preventDefault();
    const frame = (event.currentTarget as Element).getBoundingClientRect();
    const factor = Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.0015));
    setView((v) => zoomedAt(v, factor, event.clientX - frame.left, event.clientY - frame.top));
  }, []);

  const onPointerDown = useCallback((event: PointerEvent) => {
    // The main button pans where nothing else took it (the editor draws with it); the middle one always.
    if (event.button !== 0 && event.button !== 1) return;
    if (event.button === 1) event.preventDefault();
    drag.current = { pointer: event.pointerId, x: event.clientX, y: event.clientY };
    (event.currentTarget as Element).setPointerCapture(event.pointerId);
  }, []);
  const onPointerMove = useCallback((event: PointerEvent) => {
    const from = drag.current;
    if (!from || from.pointer !== event.pointerId) return;
    const dx = event.clientX - from.x;
    const dy = event.clientY - from.y;
    drag.current = { ...from, x: event.clientX, y: event.clientY };
    setView((v) => ({ ...v, x: v.x + dx, y: v.y + dy }));
  }, []);
  const onPointerUp = useCallback((event: PointerEvent) => {
    if (drag.current?.pointer === event.pointerId) drag.current = null;
  }, []);

  return { view, setView, handlers: { onWheel, onPointerDown, onPointerMove, onPointerUp, onPointerCancel: onPointerUp } };
}
