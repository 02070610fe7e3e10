// Where the user was in each gallery: how far its grid was scrolled, and the image last opened from it
// (stepping with ←/→ may have gone far past the tiles that were in view). Back to the gallery scrolls
// there again, with that image in view. Kept in sessionStorage: it survives a reload of the tab, and
// is the tab's own. Keyed by the gallery's filters (filterKey), a few galleries at a time.
const STORE = 'annostore.gallery-place';
const KEPT = 20;

export interface Place {
  top: number;
  /** The image last shown in the image view with these filters. */
  seen?: number;
}

function read(): Record<string, Place> {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(STORE) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, Place>) : {};
  } catch {
    return {};
  }
}

function write(key: string, change: Partial<Place>): void {
  const all = read();
  const place = { top: 0, ...all[key], ...change };
  // The newest last: the oldest are dropped first.
  delete all[key];
  all[key] = place;
  const keys = Object.keys(all);
  for (const old of keys.slice(0, Math.max(0, keys.length - KEPT))) delete all[old];
  try {
    sessionStorage.setItem(STORE, JSON.stringify(all));
  } catch {
    // Storage full or refused: the place is only a convenience.
  }
}

export const placeOf = (key: string): Place | undefined => read()[key];
/** A scroll of the grid: the image seen before is no longer where the user is. */
export const rememberScroll = (key: string, top: number): void => write(key, { top: Math.max(0, Math.round(top)), seen: undefined });
export const rememberSeen = (key: string, imageId: number): void => write(key, { seen: imageId });
