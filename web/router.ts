// The interface's pages are real URLs (a view can be shared, and survives a reload): this follows the
// History API and tells the app when the location changed.
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  params: URLSearchParams;
}

const listeners = new Set<() => void>();
const current = (): Location => ({ path: window.location.pathname, params: new URLSearchParams(window.location.search) });

/**
 * Asked before the page changes (a link, a key, the browser's back button): false keeps the page. One
 * page at a time sets it (the image editor with unsaved changes); null clears it.
 */
let mayLeave: (() => boolean) | null = null;
export const setLeaveCheck = (check: (() => boolean) | null): void => {
  mayLeave = check;
};
/** Asks the page whether it may go (for a change that is not a navigation: signing out); once it agreed, it is not asked again. */
export function confirmLeaving(): boolean {
  if (mayLeave && !mayLeave()) return false;
  mayLeave = null;
  return true;
}
/** The address shown, to go back to when the browser's back button is refused. */
let shown = window.location.pathname + window.location.search;

export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (mayLeave && !mayLeave()) return;
  shown = url;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', () => {
  // The browser has already moved: put the page's address back.
  if (mayLeave && !mayLeave()) {
    window.history.pushState(null, '', shown);
    return;
  }
  shown = window.location.pathname + window.location.search;
  for (const listener of listeners) listener();
});

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** The path's parameters when it matches `pattern` (`/images/:id`), else null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.replace(/\/$/, '').split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    if (want[i]!.startsWith(':')) params[want[i]!.slice(1)] = decodeURIComponent(have[i]!);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** A link that changes page without reloading it (a modified click still opens a new tab). */
export function followLink(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(anchor.getAttribute('href')!);
}
