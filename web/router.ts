// The interface's pages are real URLs (a view can be shared, and survives a reload): this follows the
// History API and tells the app when the location changed.
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  params: URLSearchParams;
}

const listeners = new Set<() => void>();
const current = (): Location => ({ path: window.location.pathname, params: new URLSearchParams(window.location.search) });

export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', () => {
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
