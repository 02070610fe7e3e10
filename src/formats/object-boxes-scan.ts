// The boxes of stored objects read straight from their text, for the common case: polygons and the
// like without tags, bitmap or escapes, as serializeObjects writes them. JSON.parse made an array for
// every point of every object only for its extremes to be taken; in a large import that was a sixth of
// the annotation thread's time, and most of its garbage. Anything else is declined (null) and parsed
// whole by the caller (object-summary.ts boxesOf), which test/unit/object-boxes-scan.test.ts compares
// with this on generated objects.

/** How serializeObjects starts an object, up to its title's text. */
const OBJECT_START = '{"classTitle":"';
const DESCRIPTION = ',"description":"';
/** Between the description and the exterior's first point: no tags, no bitmap. */
const TO_EXTERIOR = ',"tags":[],"bitmap":null,"points":{"exterior":[';
const TO_INTERIOR = ',"interior":[';
const OBJECT_END = '}}';

const OPEN = 91; // [
const CLOSE = 93; // ]
const COMMA = 44; // ,
const QUOTE = 34; // "
const BACKSLASH = 92; // \

/** Exact powers of ten: a double holds 10^0 … 10^22 exactly. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * A coordinate's text as JSON.parse reads it, or NaN for what JSON.stringify would not have written.
 * A plain decimal of at most 15 digits is its digits as an integer (exact) divided by a power of ten
 * (exact), which one division rounds correctly, as JSON.parse does; anything else (an exponent, more
 * digits) is left to Number.
 */
function coordinate(text: string, start: number, end: number): number {
  let i = start;
  const negative = text.charCodeAt(i) === 45; // -
  if (negative) i += 1;
  let digits = 0;
  let mantissa = 0;
  let decimals = -1;
  for (; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits += 1;
      if (decimals >= 0) decimals += 1;
    } else if (c === 46 && decimals < 0 && digits > 0) {
      decimals = 0;
    } else {
      break;
    }
  }
  if (i === end && digits > 0 && digits <= 15 && decimals !== 0) {
    const value = decimals > 0 ? mantissa / POWERS_OF_TEN[decimals]! : mantissa;
    return negative ? -value : value;
  }
  // Number('') is 0 and Number(' 1') is 1, where JSON.parse refuses both: no such text is taken.
  if (end <= start || text.charCodeAt(start) <= 32 || text.charCodeAt(end - 1) <= 32) return NaN;
  return Number(text.slice(start, end));
}

/** Where the string that starts at `start` ends (its closing quote), or -1 if it holds an escape. */
function plainStringEnd(text: string, start: number): number {
  const end = text.indexOf('"', start);
  if (end < 0) return -1;
  const escape = text.indexOf('\\', start);
  return escape >= 0 && escape < end ? -1 : end;
}

export interface ScannedBoxes {
  titles: string[];
  /** Left, top, width and height of each object, four numbers an object. */
  boxes: number[];
}

/** The objects' titles and boxes, or null for text that needs JSON.parse. */
export function scanBoxes(text: string): ScannedBoxes | null {
  if (text.charCodeAt(0) !== OPEN) return null;
  const titles: string[] = [];
  const boxes: number[] = [];
  let i = 1;
  for (;;) {
    if (!text.startsWith(OBJECT_START, i)) return null;
    i += OBJECT_START.length;
    const titleEnd = plainStringEnd(text, i);
    if (titleEnd < 0) return null;
    const title = text.slice(i, titleEnd);
    i = titleEnd + 1;
    if (!text.startsWith(DESCRIPTION, i)) return null;
    const descriptionEnd = plainStringEnd(text, i + DESCRIPTION.length);
    if (descriptionEnd < 0) return null;
    i = descriptionEnd + 1;
    if (!text.startsWith(TO_EXTERIOR, i)) return null;
    i += TO_EXTERIOR.length;
    let left = Infinity;
    let top = Infinity;
    let right = -Infinity;
    let bottom = -Infinity;
    if (text.charCodeAt(i) === CLOSE) {
      i += 1;
    } else {
      for (;;) {
        if (text.charCodeAt(i) !== OPEN) return null;
        const comma = text.indexOf(',', i + 1);
        const close = comma < 0 ? -1 : text.indexOf(']', comma + 1);
        if (close < 0) return null;
        const x = coordinate(text, i + 1, comma);
        const y = coordinate(text, comma + 1, close);
        if (Number.isNaN(x) || Number.isNaN(y)) return null;
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        if (y > bottom) bottom = y;
        i = close + 1;
        const next = text.charCodeAt(i++);
        if (next === CLOSE) break;
        if (next !== COMMA) return null;
      }
    }
    if (!text.startsWith(TO_INTERIOR, i)) return null;
    i += TO_INTERIOR.length;
    // The holes are passed over: only numbers, commas and brackets, to the bracket that closes them.
    for (let depth = 1; depth > 0; ) {
      const c = text.charCodeAt(i++);
      if (c === OPEN) depth += 1;
      else if (c === CLOSE) depth -= 1;
      else if (Number.isNaN(c) || c === QUOTE || c === BACKSLASH) return null;
    }
    if (!text.startsWith(OBJECT_END, i)) return null;
    i += OBJECT_END.length;
    titles.push(title);
    // No points: a box of nothing at the origin, as for a parsed object.
    if (left === Infinity) boxes.push(0, 0, 0, 0);
    else boxes.push(left, top, right - left, bottom - top);
    const next = text.charCodeAt(i++);
    if (next === CLOSE) return i === text.length ? { titles, boxes } : null;
    if (next !== COMMA) return null;
  }
}
