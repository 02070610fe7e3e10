// The objects drawn over gallery tiles: one request for the tiles of a page of the list (up to 200
// images, GET /v2/images/overlays), where each tile once asked for its own annotation. What was read
// is kept (a bounded number, by image and its last change) so scrolling back costs nothing; a page
// that leaves the view before its answer is aborted.
import { useEffect, useReducer, useRef } from 'preact/hooks';
import { type Image, type TileOverlay, getTileOverlays } from './api.ts';
import { type ImageList, PAGE } from './image-list.ts';

const KEPT = 5000;
const kept = new Map<string, TileOverlay['objects']>();

const keyOf = (image: Image): string => `${image.id}:${image.updatedAt}`;

/** The objects of the image, when read. */
export const tileObjects = (image: Image): TileOverlay['objects'] | undefined => kept.get(keyOf(image));

function keep(image: Image, objects: TileOverlay['objects']): void {
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
  kept.set(keyOf(image), objects);
}

/** Reads the overlays of the list's pages that positions `from`–`to` show; re-renders as they come. */
export function useTileOverlays(list: ImageList, from: number, to: number, enabled: boolean): void {
  const [, changed] = useReducer((n: number, _: undefined) => n + 1, 0);
  const asked = useRef(new Map<number, AbortController | null>());
  useEffect(() => {
    const pages = asked.current;
    return () => {
      for (const request of pages.values()) request?.abort();
      pages.clear();
    };
  }, [list]);
  const firstPage = Math.floor(from / PAGE);
  const lastPage = Math.floor(Math.max(from, to - 1) / PAGE);
  useEffect(() => {
    if (!enabled) return;
    const pages = asked.current;
    for (const [page, request] of pages) {
      if (request && (page < firstPage || page > lastPage)) {
        request.abort();
        pages.delete(page);
      }
    }
    for (let page = firstPage; page <= lastPage; page += 1) {
      if (pages.has(page)) continue;
      const images = list.items.slice(page * PAGE, (page + 1) * PAGE).filter(Boolean);
      if (images.length === 0) continue; // not loaded yet: asked when it is
      const lacking = images.filter((image) => image.objectCounts.length > 0 && !kept.has(keyOf(image)));
      if (lacking.length === 0) {
        pages.set(page, null);
        continue;
      }
      const request = new AbortController();
      pages.set(page, request);
      getTileOverlays(
        lacking.map((image) => image.id),
        request.signal,
      ).then(
        (items) => {
          const byId = new Map(items.map((item) => [item.id, item.objects]));
          for (const image of lacking) keep(image, byId.get(image.id) ?? []);
          pages.set(page, null);
          changed(undefined);
        },
        () => {
          // Aborted: gone from the map already. Refused: not asked again on every render.
          if (!request.signal.aborted) pages.set(page, null);
        },
      );
    }
  });
}
