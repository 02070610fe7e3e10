// A tile's thumbnail, fetched rather than left to an <img src>: a tile that leaves the page (a row
// scrolled past, a jump elsewhere) aborts its request, where an image element removed from the page
// goes on loading, and a fast scroll through 5,000 images queued thousands of thumbnails ahead of the
// ones in view. Asked at low priority, behind the list's pages and overlays; the HTTP cache (the
// thumbnails are immutable) answers a tile scrolled back into view.
import { useEffect, useState } from 'preact/hooks';
import { thumbnailUrl } from './api.ts';

/** An object URL of the image's thumbnail once fetched; null until then (or when it failed). */
export function useThumbnail(imageId: number): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const request = new AbortController();
    let made: string | null = null;
    setUrl(null);
    const init: RequestInit & { priority?: 'low' } = { credentials: 'same-origin', signal: request.signal, priority: 'low' };
    fetch(thumbnailUrl(imageId), init)
      .then((res) => (res.ok ? res.blob() : null))
      .then((blob) => {
        if (!blob || request.signal.aborted) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => undefined);
    return () => {
      request.abort();
      if (made) URL.revokeObjectURL(made);
    };
  }, [imageId]);
  return url;
}
