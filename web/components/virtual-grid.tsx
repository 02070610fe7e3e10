// A grid of thumbnails that keeps only the rows near the viewport in the DOM: the scroll height is the
// whole list's, and each tile is placed by its index, so 100,000 images cost what a screenful does.
// Pages of the list are loaded as the visible rows reach past what is loaded.
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import { type Annotation, type Image, type ImageClass, thumbnailUrl } from '../api.ts';
import { tileAnnotation } from '../annotation-cache.ts';
import { AnnotationLayer } from './annotation-layer.tsx';
import type { ImageList } from '../image-list.ts';
import { textOn } from '../colors.ts';
import { placeholderOf } from '../thumbhash.ts';
import { Link } from './link.tsx';
import type { Place } from '../gallery-place.ts';

const TILE = 168;
const GAP = 12;
const CAPTION = 24;
const ROW = TILE + CAPTION + GAP;
/** Rows drawn above and below the visible ones, so a quick scroll finds them ready. */
const OVERSCAN = 3;

export interface GridProps {
  list: ImageList;
  /** The image view's address of an image (carrying the filters). */
  hrefOf: (image: Image) => string;
  /** Classes' colours by id, for the marks of what each image holds. */
  colors: Map<number, string>;
  /** The project's classes by title, to draw each tile's objects, but those of the `hidden` titles; null draws none. */
  overlay: { classes: Map<string, ImageClass>; opacity: number; hidden: Set<string> } | null;
  selected: Set<number>;
  onSelect: (id: number) => void;
  /** Where to open: the scroll offset, and an image to bring into view (the one last seen). */
  place?: Place;
  /** Told the scroll offset as the user scrolls. */
  onScrolled?: (top: number) => void;
}

export function VirtualGrid(props: GridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [top, setTop] = useState(0);
  const [, changed] = useReducer((n: number, _: undefined) => n + 1, 0);

  useEffect(() => props.list.subscribe(() => changed(undefined)), [props.list]);
  // The place to open at, until taken (below); another list (other filters, or read again) starts at its top.
  const pending = useRef<Place | undefined>(props.place && (props.place.top > 0 || props.place.seen !== undefined) ? props.place : undefined);
  const firstList = useRef(props.list);
  useEffect(() => {
    if (props.list === firstList.current) return;
    pending.current = undefined;
    scroller.current?.scrollTo({ top: 0 });
    setTop(0);
  }, [props.list]);

  useLayoutEffect(() => {
    const element = scroller.current!;
    const observer = new ResizeObserver(() => setSize({ width: element.clientWidth, height: element.clientHeight }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const columns = Math.max(1, Math.floor((size.width + GAP) / (TILE + GAP)));
  const known = props.list.total ?? props.list.items.length;
  const rows = Math.ceil(known / columns);
  const firstRow = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const lastRow = Math.min(rows - 1, Math.ceil((top + size.height) / ROW) + OVERSCAN);
  const first = firstRow * columns;
  const last = Math.min(known, (lastRow + 1) * columns);

  // The place is taken once the grid has its size and the list its length (the scroll height), and
  // the seen image its index: centred when it would be out of view at the kept offset.
  const seenAt = pending.current?.seen === undefined ? -1 : props.list.items.findIndex((image) => image.id === pending.current!.seen);
  useEffect(() => {
    const seen = pending.current?.seen;
    if (seen !== undefined && seenAt < 0 && !props.list.complete) void props.list.indexOf(seen).catch(() => undefined);
  }, [props.list]);
  useLayoutEffect(() => {
    const place = pending.current;
    const element = scroller.current;
    if (!place || !element || size.height === 0 || props.list.total === null) return;
    if (place.seen !== undefined && seenAt < 0 && !props.list.complete) return;
    pending.current = undefined;
    let target = place.top;
    if (seenAt >= 0) {
      const rowTop = Math.floor(seenAt / columns) * ROW;
      if (rowTop < target || rowTop + ROW > target + size.height) target = rowTop - Math.max(0, (size.height - ROW) / 2);
    }
    element.scrollTop = Math.max(0, target);
    setTop(element.scrollTop);
  }, [size.height, columns, known, seenAt]);

  useEffect(() => {
    if (size.height > 0) void props.list.loadUntil(Math.max(last, columns * Math.ceil(size.height / ROW)));
  }, [props.list, last, size.height, columns]);

  const frame = useRef(0);
  const onScroll = () => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => {
      const now = scroller.current!.scrollTop;
      setTop(now);
      if (!pending.current) props.onScrolled?.(now);
    });
  };

  const tiles = [];
  for (let index = first; index < last; index += 1) {
    const image = props.list.items[index];
    const row = Math.floor(index / columns);
    const column = index % columns;
    const place = { top: `${row * ROW}px`, left: `${column * (TILE + GAP)}px` };
    tiles.push(
      image ? (
        <li key={image.id} class={props.selected.has(image.id) ? 'tile selected' : 'tile'} style={place} aria-setsize={known} aria-posinset={index + 1}>
          <Tile image={image} href={props.hrefOf(image)} colors={props.colors} overlay={props.overlay} />
          <input type="checkbox" class="select" checked={props.selected.has(image.id)} onChange={() => props.onSelect(image.id)} aria-label={`Select ${image.name}`} />
        </li>
      ) : (
        <li key={`slot-${index}`} class="tile pending" style={place} aria-setsize={known} aria-posinset={index + 1} aria-busy="true" />
      ),
    );
  }

  return (
    <div class="grid-scroller" ref={scroller} onScroll={onScroll}>
      <ul class="grid" aria-label="Images" style={{ height: `${rows * ROW}px`, width: `${columns * (TILE + GAP) - GAP}px` }}>
        {tiles}
      </ul>
    </div>
  );
}

function Tile(props: { image: Image; href: string; colors: Map<number, string>; overlay: GridProps['overlay'] }) {
  const { image } = props;
  const annotation = useTileAnnotation(image, props.overlay !== null);
  const placeholder = placeholderOf(image.thumbhash);
  const objects = image.objectCounts.reduce((sum, c) => sum + c.count, 0);
  return (
    <Link href={props.href} class="tile-link" title={image.name}>
      <span class="thumb" style={placeholder ? { backgroundImage: `url("${placeholder}")` } : undefined}>
        <img src={thumbnailUrl(image.id)} alt={`${image.name}, ${objects === 1 ? '1 object' : `${objects} objects`}`} loading="lazy" decoding="async" width={TILE} height={TILE} />
        {props.overlay && annotation && image.width > 0 && (
          // Drawn in the image's own pixels, fitted as the thumbnail is (contain, centred).
          <svg class="tile-objects" viewBox={`0 0 ${image.width} ${image.height}`} preserveAspectRatio="xMidYMid meet" aria-hidden="true">
            <AnnotationLayer objects={annotation.objects} classes={props.overlay.classes} hidden={props.overlay.hidden} hovered={null} onHover={ignore} scale={TILE / Math.max(image.width, image.height)} opacity={props.overlay.opacity} idPrefix={`tile-${image.id}`} />
          </svg>
        )}
        <span class="marks" aria-hidden="true">
          {image.objectCounts.map((c) => (
            <span key={c.classId} class="mark" style={markStyle(props.colors.get(c.classId) ?? '#888888')} title={`${c.classTitle}: ${c.count}`}>
              {c.count}
            </span>
          ))}
        </span>
      </span>
      <span class="caption">{image.name}</span>
    </Link>
  );
}

const markStyle = (color: string) => ({ background: color, color: textOn(color) });

const ignore = () => undefined;

/** The tile's annotation once read (only for images with objects, and only while the tile is shown). */
function useTileAnnotation(image: Image, wanted: boolean): Annotation | null {
  const [annotation, setAnnotation] = useState<Annotation | null>(null);
  useEffect(() => {
    if (!wanted || image.objectCounts.length === 0) return;
    let live = true;
    const found = tileAnnotation(image.id, () => live);
    if (found instanceof Promise) void found.then((a) => live && setAnnotation(a));
    else setAnnotation(found);
    return () => void (live = false);
  }, [image.id, wanted]);
  return annotation;
}
