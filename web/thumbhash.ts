// Thumbhash placeholders: a few dozen bytes (base64) that draw a blurred image while its thumbnail loads.
import { thumbHashToDataURL } from 'thumbhash';

const decoded = new Map<string, string>();
const KEPT = 5000;

export function placeholderOf(thumbhash: string | null): string | undefined {
  if (!thumbhash) return undefined;
  let url = decoded.get(thumbhash);
  if (url === undefined) {
    try {
      url = thumbHashToDataURL(Uint8Array.from(atob(thumbhash), (c) => c.charCodeAt(0)));
    } catch {
      return undefined;
    }
    if (decoded.size >= KEPT) decoded.delete(decoded.keys().next().value!);
    decoded.set(thumbhash, url);
  }
  return url;
}
