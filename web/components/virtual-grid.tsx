// A grid of thumbnails that keeps only the rows near the viewport in the DOM, each tile placed by its
// position in the list, so a million images cost what a screenful does. A list taller than a browser
// lets an element be (a million tiles are 41 million px) is mapped onto a shorter scroller
// (scroll-space.ts): the scrollbar reaches every row, and the wheel moves rows as it always does.
// The pages of the list in view are loaded by position (image-list.ts), their tiles' objects one
// request a page (tile-overlays.ts), and each thumbnail's request is aborted with its tile.
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { Image, ImageClass } from '../api.ts';
import { AnnotationLayer } from './annotation-layer.tsx';
import type { ImageList } from '../image-list.ts';
import { textOn } from '../colors.ts';
import { placeholderOf } from '../thumbhash.ts';
import { ScrollSpace } from '../scroll-space.ts';
import { useThumbnail } from '../thumbnail-loader.ts';
import { tileObjects, useTileOverlays } from '../tile-overlays.ts';
import { Link } from './link.tsx';
import type { Place } from '../gallery-place.ts';

const TILE = 168;
const GAP = 12;
const CAPTION = 24;
const ROW = TILE + CAPTION + GAP;
/** The scroller's padding (styles.css): the rows start below it. */
const PAD = 16;
/** Rows drawn above and below the visible ones, so a quick scroll finds them ready. */
const OVERSCAN = 3;
/** How long after a wheel, touch or key event its scrolling counts as fine (smooth scrolling runs on). */
const FINE_MS = 400;
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
  /** Where to open: the content offset, and an image to bring into view (the one last seen). */
  place?: Place;
  /** Told the content offset as the user scrolls. */
  onScrolled?: (top: number) => void;
}

export function VirtualGrid(props: GridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [, render] = useReducer((n: number, _: undefined) => n + 1, 0);
  const space = useMemo(() => new ScrollSpace(), [props.list]);
  const fineUntil = useRef(0);

  useEffect(() => props.list.subscribe(() => render(undefined)), [props.list]);
  // The place to open at, until taken (below); another list (other filters, or read again) starts at its top.
  const pending = useRef<Place | undefined>(props.place && (props.place.top > 0 || props.place.seen !== undefined) ? props.place : undefined);
  const firstList = useRef(props.list);
  useEffect(() => {
    if (props.list === firstList.current && pending.current) return;
    pending.current = undefined;
    if (scroller.current) scroller.current.scrollTop = space.jumpTo(0);
    render(undefined);
  }, [props.list]);
  // The position of the image last seen, once the list has found it (-1: no longer in the list).
  const [seenAt, setSeenAt] = useState<number | null>(null);
  useEffect(() => {
    const seen = pending.current?.seen;
    if (seen !== undefined) void props.list.indexOf(seen).then(setSeenAt, () => setSeenAt(-1));
  }, [props.list]);

  useLayoutEffect(() => {
    const element = scroller.current!;
    const observer = new ResizeObserver(() => setSize({ width: element.clientWidth - 2 * PAD, height: element.clientHeight }));
    observer.observe(element);
    const fine = () => void (fineUntil.current = performance.now() + FINE_MS);
    const events = ['wheel', 'touchstart', 'touchmove', 'keydown'] as const;
    for (const name of events) element.addEventListener(name, fine, { passive: true });
    return () => {
      observer.disconnect();
      for (const name of events) element.removeEventListener(name, fine);
    };
  }, []);

  const columns = Math.max(1, Math.floor((size.width + GAP) / (TILE + GAP)));
  const known = props.list.total ?? props.list.items.length;
  const rows = Math.ceil(known / columns);
  // A change of columns (a resize) keeps the first row's images in view, or the end at the end.
  const columnsBefore = useRef(columns);
  const scrollTo = useRef<number | null>(null);
  if (columnsBefore.current !== columns) {
    const atEnd = space.atEnd;
    const index = Math.floor(Math.max(0, space.top - PAD) / ROW) * columnsBefore.current;
    columnsBefore.current = columns;
    space.resize(rows * ROW + 2 * PAD, size.height);
    scrollTo.current = space.jumpTo(atEnd ? Infinity : index === 0 ? 0 : PAD + Math.floor(index / columns) * ROW);
  } else {
    space.resize(rows * ROW + 2 * PAD, size.height);
  }
  // The place is taken once the grid has its size and the list its length, and the seen image its
  // position: centred when it would be out of view at the kept offset.
  useLayoutEffect(() => {
    const place = pending.current;
    if (!place || !scroller.current || size.height === 0 || props.list.total === null) return;
    if (place.seen !== undefined && seenAt === null) return;
    pending.current = undefined;
    let target = place.top;
    if (seenAt !== null && seenAt >= 0) {
      const rowTop = PAD + Math.floor(seenAt / columns) * ROW;
      if (rowTop < target || rowTop + ROW > target + size.height) target = rowTop - Math.max(0, (size.height - ROW) / 2);
    }
    scroller.current.scrollTop = space.jumpTo(target);
    render(undefined);
  }, [size.height, columns, known, seenAt]);
  useLayoutEffect(() => {
    if (scrollTo.current === null || !scroller.current) return;
    scroller.current.scrollTop = scrollTo.current;
    scrollTo.current = null;
  });
  const top = Math.max(0, space.top - PAD);
  const firstRow = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const lastRow = Math.min(rows - 1, Math.ceil((top + size.height) / ROW) + OVERSCAN);
  const first = firstRow * columns;
  const last = Math.min(known, (lastRow + 1) * columns);

  // The first page before the total is known; then what is in view, and a screenful either side.
  const screen = columns * Math.ceil(size.height / ROW);
  useEffect(() => {
    if (size.height > 0) props.list.show(Math.max(0, first - screen), Math.max(last + screen, screen));
  });
  useTileOverlays(props.list, first, last, props.overlay !== null);

  const frame = useRef(0);
  const onScroll = () => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => {
      const element = scroller.current!;
      const resync = space.scrolled(element.scrollTop, performance.now() < fineUntil.current);
      if (resync !== null) element.scrollTop = resync;
      if (!pending.current) props.onScrolled?.(space.top);
      render(undefined);
    });
  };

  const tiles = [];
  for (let index = first; index < last; index += 1) {
    const image = props.list.items[index] as Image | undefined;
    const row = Math.floor(index / columns);
    const column = index % columns;
    const place = { top: `${space.place(PAD + row * ROW) - PAD}px`, left: `${column * (TILE + GAP)}px` };
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

  const height = Math.max(0, space.space - 2 * PAD);
  return (
    <div class="grid-scroller" ref={scroller} onScroll={onScroll}>
      <ul class={space.scaled ? 'grid scaled' : 'grid'} aria-label="Images" style={{ height: `${height}px`, width: `${columns * (TILE + GAP) - GAP}px` }}>
        {tiles}
      </ul>
    </div>
  );
}

function Tile(props: { image: Image; href: string; colors: Map<number, string>; overlay: GridProps['overlay'] }) {
  const { image } = props;
  const objects = props.overlay ? tileObjects(image) : undefined;
  const thumbnail = useThumbnail(image.id);
  const placeholder = placeholderOf(image.thumbhash);
  const count = image.objectCounts.reduce((sum, c) => sum + c.count, 0);
  return (
    <Link href={props.href} class="tile-link" title={image.name} aria-label={`${image.name}, ${count === 1 ? '1 object' : `${count} objects`}`}>
      <span class="thumb" style={placeholder ? { backgroundImage: `url("${placeholder}")` } : undefined}>
        {thumbnail && <img src={thumbnail} alt="" decoding="async" width={TILE} height={TILE} />}
        {props.overlay && objects && image.width > 0 && (
          // Drawn in the image's own pixels, fitted as the thumbnail is (contain, centred).
          <svg class="tile-objects" viewBox={`0 0 ${image.width} ${image.height}`} preserveAspectRatio="xMidYMid meet" aria-hidden="true">
            <AnnotationLayer objects={objects} classes={props.overlay.classes} hidden={props.overlay.hidden} hovered={null} onHover={ignore} scale={TILE / Math.max(image.width, image.height)} opacity={props.overlay.opacity} idPrefix={`tile-${image.id}`} />
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
