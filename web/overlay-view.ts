// How a gallery draws the objects over its tiles, as it stands in the URL next to the filters
// (`?objects=off`, `?fill=0.5`, `?hide=3,7`), so that a shared link shows the same view. It is a view
// setting only: it narrows no list (a class hidden here still finds its images; the class filter does
// that), and the image view does not carry it on.

export interface OverlayView {
  /** Whether the tiles draw their objects at all. */
  show: boolean;
  /** Fill opacity of the shapes, 0 to 1. */
  opacity: number;
  /** Classes (by id) whose shapes the tiles leave out. */
  hiddenClassIds: ReadonlySet<number>;
}

export const DEFAULT_OPACITY = 0.3;
/** A URL names at most this many hidden classes (a project's classes are few; a link is not a store). */
const MAX_HIDDEN = 500;

export function overlayFromUrl(params: URLSearchParams): OverlayView {
  const fill = Number(params.get('fill') ?? DEFAULT_OPACITY);
  const hidden = (params.get('hide') ?? '')
    .split(',')
    .slice(0, MAX_HIDDEN)
    .map(Number)
    .filter((n) => Number.isSafeInteger(n) && n > 0);
  return {
    show: params.get('objects') !== 'off',
    opacity: Number.isFinite(fill) ? Math.min(1, Math.max(0, fill)) : DEFAULT_OPACITY,
    hiddenClassIds: new Set(hidden),
  };
}

/** Adds the view to a URL's parameters, leaving out what is as by default (a plain link stays plain). */
export function writeOverlay(params: URLSearchParams, view: OverlayView): URLSearchParams {
  if (!view.show) params.set('objects', 'off');
  if (view.opacity !== DEFAULT_OPACITY) params.set('fill', String(Math.round(view.opacity * 100) / 100));
  if (view.hiddenClassIds.size) params.set('hide', [...view.hiddenClassIds].sort((a, b) => a - b).join(','));
  return params;
}

/** The view with the class's shapes drawn or left out. */
export function withClassShown(view: OverlayView, classId: number, shown: boolean): OverlayView {
  const hiddenClassIds = new Set(view.hiddenClassIds);
  if (shown) hiddenClassIds.delete(classId);
  else hiddenClassIds.add(classId);
  return { ...view, hiddenClassIds };
}
