// The objects of the image, one row each: hovering a row highlights its shape and the other way
// round; in the editor a row selects its object (which scrolls into view when the image selects it)
// and shows what the server refused about it.
// Built for a thousand objects: only the rows in view (and a few around them) are in the page, each
// of one fixed height, placed by its index; the focused and the selected rows stay in the page so the
// keyboard never loses its place. ↑/↓, Home and End move between rows. Memoised: a pan, a zoom or a
// drag elsewhere does not redraw it.
import { memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ImageClass } from '../api.ts';
import { type LayerObject, objectName } from './annotation-layer.tsx';
import { tagText } from './tag-value-input.tsx';

/** A row's height in pixels; styles.css gives `.object-list li` the same. */
export const ROW = 30;
/** The scroller's largest height (styles.css: `.object-scroller`), the rows drawn before it is measured. */
const MAX_HEIGHT = 480;
/** Rows drawn above and below those in view, so a quick scroll finds them ready. */
const OVERSCAN = 8;

interface Props {
  objects: readonly (LayerObject & { tags: string[]; tagValues?: Readonly<Record<string, string | number>> })[];
  classes: Map<string, ImageClass>;
  hovered: number | null;
  onHover: (name: number | null) => void;
  selected?: number | null | undefined;
  onSelect?: ((name: number) => void) | undefined;
  problems?: ReadonlyMap<number, string> | undefined;
  /** The id of the heading that names the list. */
  labelledBy: string;
}

/** The first and last (exclusive) rows to draw for a scroll position. */
export function rowsInView(top: number, height: number, count: number): { first: number; last: number } {
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / ROW) + OVERSCAN);
  return { first, last };
}

export const ObjectList = memo(function ObjectList(props: Props) {
  const { objects } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(MAX_HEIGHT);
  const [focused, setFocused] = useState<number | null>(null);
  /** A row to focus once it is drawn (after ↑/↓ moved past the rows in the page). */
  const focusNext = useRef<number | null>(null);

  useLayoutEffect(() => {
    const element = scroller.current!;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const frame = useRef(0);
  const onScroll = () => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => setTop(scroller.current?.scrollTop ?? 0));
  };
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  /** Scrolls the row at `index` into view (the least scroll that shows it whole), drawing it at once. */
  const reveal = (index: number) => {
    const element = scroller.current;
    if (!element) return;
    const rowTop = index * ROW;
    let next = element.scrollTop;
    if (rowTop < next) next = rowTop;
    else if (rowTop + ROW > next + element.clientHeight) next = rowTop + ROW - element.clientHeight;
    if (next === element.scrollTop) return;
    element.scrollTop = next;
    setTop(element.scrollTop);
  };

  // The object selected on the image comes into view in the list.
  const selectedIndex = props.selected == null ? -1 : objects.findIndex((o) => objectName(o) === props.selected);
  useLayoutEffect(() => {
    if (selectedIndex >= 0) reveal(selectedIndex);
  }, [props.selected]);

  useLayoutEffect(() => {
    const index = focusNext.current;
    if (index === null) return;
    focusNext.current = null;
    scroller.current?.querySelector<HTMLElement>(`li[data-index="${index}"]`)?.focus();
  });

  const moveFocus = (from: number, key: string): boolean => {
    const to = key === 'ArrowDown' ? from + 1 : key === 'ArrowUp' ? from - 1 : key === 'Home' ? 0 : key === 'End' ? objects.length - 1 : -1;
    if (to < 0 || to >= objects.length) return false;
    focusNext.current = to;
    setFocused(to);
    reveal(to);
    return true;
  };

  const { first, last } = rowsInView(top, height, objects.length);
  const drawn: number[] = [];
  for (let index = first; index < last; index += 1) drawn.push(index);
  // The focused and the selected rows stay in the page wherever the list is scrolled.
  for (const extra of [focused, selectedIndex]) if (extra !== null && extra >= 0 && extra < objects.length && (extra < first || extra >= last)) drawn.push(extra);

  return (
    <div class="object-scroller" ref={scroller} onScroll={onScroll}>
      <ul class="object-list" aria-labelledby={props.labelledBy} style={{ height: `${objects.length * ROW}px` }}>
        {drawn.map((index) => {
          const o = objects[index]!;
          const name = objectName(o);
          const problem = props.problems?.get(name);
          const classes = [props.hovered === name && 'hovered', props.selected === name && 'selected', problem && 'has-problem'].filter(Boolean).join(' ');
          const note = problem ?? (o.tags.length > 0 ? o.tags.map((t) => tagText(t, o.tagValues)).join(', ') : '');
          return (
            <li
              key={name}
              class={classes || undefined}
              style={{ top: `${index * ROW}px` }}
              data-index={index}
              data-object-id={o.id}
              data-key={name}
              aria-setsize={objects.length}
              aria-posinset={index + 1}
              aria-current={props.selected === name ? 'true' : undefined}
              title={note ? `${o.classTitle}: ${note}` : o.classTitle}
              onPointerEnter={() => props.onHover(name)}
              onPointerLeave={() => props.onHover(null)}
              onFocusIn={() => {
                setFocused(index);
                props.onHover(name);
              }}
              onFocusOut={() => props.onHover(null)}
              onClick={() => props.onSelect?.(name)}
              onKeyDown={(e) => {
                if (props.onSelect && (e.key === 'Enter' || e.key === ' ')) {
                  e.preventDefault();
                  props.onSelect(name);
                } else if (moveFocus(index, e.key)) e.preventDefault();
              }}
              tabIndex={0}
            >
              <span class="swatch" style={{ background: props.classes.get(o.classTitle)?.color ?? '#ff00ff' }} aria-hidden="true" />
              <span class="object-class">{o.classTitle}</span>
              {note && <span class={problem ? 'object-problem' : 'object-tags'}>{note}</span>}
              <span class="object-id">{o.id === undefined ? 'new' : `#${o.id}`}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
});
