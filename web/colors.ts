// Text drawn on a class's colour: black on light colours, white on dark ones (WCAG relative luminance).
export function textOn(color: string): string {
  const channel = (hex: string) => {
    const c = parseInt(hex, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!m) return '#fff';
  const luminance = 0.2126 * channel(m[1]!) + 0.7152 * channel(m[2]!) + 0.0722 * channel(m[3]!);
  return luminance > 0.4 ? '#111' : '#fff';
}
