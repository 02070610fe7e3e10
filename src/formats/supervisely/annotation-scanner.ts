// The common case of a Supervisely annotation file, prepared straight from its bytes.
//
// An import of a hundred thousand annotation files spent most of its time turning coordinates from
// text into doubles (JSON.parse) and back (JSON.stringify). This scanner walks the bytes once, checks
// what parseAnnotation checks, and copies each coordinate's text into the stored objects the way
// JSON.stringify writes its value. It takes files whose objects have no tags and no bitmap, whose
// strings have no escapes and whose numbers are plain decimals of at most 15 digits; for anything else
// it declines (answers null), and the caller takes the general path (parseAnnotation, then
// serializeObjects), which also gives the exact error of a bad file.
//
// What it accepts it must store exactly as the general path would: test/unit/annotation-scanner.test.ts
// compares the two on generated and on real files.
import type { ClassShape } from '../canonical.ts';
import { MAX_OBJECTS_PER_ANNOTATION, MAX_POINTS_PER_OBJECT } from './annotation-reader.ts';

/** What an import stores of an annotation file the scanner took. */
export interface ScannedAnnotation {
  description: string;
  /** The objects as serializeObjects writes them. */
  objectsJson: string;
}

interface ScanClass {
  bytes: Buffer;
  shape: ClassShape;
  /** The title as a JSON string, UTF-8. */
  json: Buffer;
  /** Whether that holds bytes outside ASCII. */
  wide: boolean;
  /** The shape's name, as a geometryType would give it. */
  shapeBytes: Buffer;
}

/** The classes a scan knows, found by the bytes of their titles. */
export class ScanClasses {
  private readonly byLength = new Map<number, ScanClass[]>();

  /** `shapes`: the project's classes by title, as parseAnnotation reads them from the meta. */
  constructor(shapes: ReadonlyMap<string, ClassShape>) {
    for (const [title, shape] of shapes) {
      const bytes = Buffer.from(title, 'utf8');
      // A title with a lone surrogate is written as the bytes of U+FFFD, which a file's title of U+FFFD
      // also has: such a class is left to the general path, which tells the two apart.
      if (bytes.toString('utf8') !== title) continue;
      const list = this.byLength.get(bytes.length) ?? [];
      list.push({ bytes, shape, json: Buffer.from(JSON.stringify(title), 'utf8'), wide: bytes.some((c) => c >= 0x80), shapeBytes: ascii(shape) });
      this.byLength.set(bytes.length, list);
    }
  }

  find(source: Uint8Array, start: number, end: number): ScanClass | undefined {
    const candidates = this.byLength.get(end - start);
    if (!candidates) return undefined;
    for (const candidate of candidates) if (equalBytes(source, start, candidate.bytes)) return candidate;
    return undefined;
  }
}

/** The annotation, or null when the file needs the general path. */
export function scanAnnotation(bytes: Uint8Array, classes: ScanClasses): ScannedAnnotation | null {
  const scan = new Scan(bytes, classes);
  try {
    return scan.annotation();
  } catch (error) {
    if (error === DECLINED) return null;
    throw error;
  }
}

/** Thrown (one instance, no stack taken) when the file leaves what the scanner handles. */
const DECLINED = new Error('the annotation scanner declined the file');

function decline(): never {
  throw DECLINED;
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const ONE = 0x31;
const NINE = 0x39;
const COLON = 0x3a;
const BRACKET_OPEN = 0x5b;
const BACKSLASH = 0x5c;
const BRACKET_CLOSE = 0x5d;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;

const ascii = (text: string) => Buffer.from(text, 'latin1');
const KEY = {
  description: ascii('description'),
  tags: ascii('tags'),
  size: ascii('size'),
  objects: ascii('objects'),
  width: ascii('width'),
  height: ascii('height'),
  classTitle: ascii('classTitle'),
  geometryType: ascii('geometryType'),
  bitmap: ascii('bitmap'),
  points: ascii('points'),
  exterior: ascii('exterior'),
  interior: ascii('interior'),
};
const LITERAL = { true: ascii('true'), false: ascii('false'), null: ascii('null') };
const OUT = {
  classTitle: ascii('{"classTitle":'),
  description: ascii(',"description":'),
  points: ascii(',"tags":[],"bitmap":null,"points":{"exterior":'),
  interior: ascii(',"interior":'),
  end: ascii('}}'),
  emptyString: ascii('""'),
};
const CORNERS_BETWEEN = ascii('],[');

/** Exact powers of ten: a decimal of at most 15 digits is `digits / POW10[scale]`, correctly rounded. */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);
const MAX_DIGITS = 15;
/** Unknown values nested deeper than this are left to JSON.parse. */
const MAX_SKIP_DEPTH = 64;

function equalBytes(source: Uint8Array, start: number, expected: Uint8Array): boolean {
  for (let k = 0; k < expected.length; k += 1) if (source[start + k] !== expected[k]) return false;
  return true;
}

const isDigit = (c: number | undefined) => c !== undefined && c >= ZERO && c <= NINE;

const KEPT_OUTPUT_BYTES = 1 << 20;

/** A growable output buffer, kept by the thread between files. */
class Output {
  bytes = Buffer.allocUnsafe(1 << 16);
  length = 0;
  ascii = true;

  reset(): void {
    // One very large file does not keep its buffer for the thread's life.
    if (this.bytes.length > KEPT_OUTPUT_BYTES) this.bytes = Buffer.allocUnsafe(KEPT_OUTPUT_BYTES);
    this.length = 0;
    this.ascii = true;
  }

  reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(bigger, 0, 0, this.length);
    this.bytes = bigger;
  }

  byte(c: number): void {
    this.reserve(1);
    this.bytes[this.length++] = c;
  }

  copy(source: Uint8Array, start: number, end: number): void {
    this.reserve(end - start);
    const bytes = this.bytes;
    let at = this.length;
    // A call into native code costs more than a short loop.
    if (end - start > 64) {
      bytes.set(source.subarray(start, end), at);
      at += end - start;
    } else for (let k = start; k < end; k += 1) bytes[at++] = source[k]!;
    this.length = at;
  }

  append(chunk: Uint8Array): void {
    this.copy(chunk, 0, chunk.length);
  }

  text(): string {
    return this.bytes.toString(this.ascii ? 'latin1' : 'utf8', 0, this.length);
  }
}

const output = new Output();

/**
 * One ring of the object being read: where its text is, how many points it has, and whether that
 * text is already what JSON.stringify would write (no spaces, no trailing zeros, no -0), so it can be
 * copied as it is.
 */
interface Ring {
  start: number;
  end: number;
  points: number;
  canonical: boolean;
}

/**
 * The rings of the object being read, reused from one object to the next, so that a scan allocates
 * little but its output (an annotation thread scans 100,000 files, and every object it makes is
 * collected). An object with more rings than are kept gets new ones for the rest.
 */
const rings: Ring[] = [];
const KEPT_RINGS = 64;
let ringsUsed = 0;
/** The object's holes, in the same way. */
const holes: Ring[] = [];

const isSpace = (c: number | undefined) => c === SPACE || c === LF || c === CR || c === TAB;

/** Set by checkNumber: whether the number it checked is written as JSON.stringify writes it. */
let checkedCanonical = false;

/**
 * Checks the plain decimal at `i` (see Scan.number for what that is) without reading its value;
 * answers where it ends, or -1 when the scanner does not take it.
 */
function checkNumber(b: Uint8Array, i: number): number {
  let c = b[i];
  const negative = c === MINUS;
  if (negative) c = b[++i];
  let digits = 0;
  let nonzero = true;
  if (c === ZERO) {
    nonzero = false;
    c = b[++i];
  } else if (c !== undefined && c >= ONE && c <= NINE) {
    do {
      digits += 1;
      c = b[++i];
    } while (isDigit(c));
  } else return -1;
  let canonical = true;
  if (c === DOT) {
    c = b[++i];
    if (!isDigit(c)) return -1;
    let leadingZeros = 0;
    do {
      digits += 1;
      if (c !== ZERO) nonzero = true;
      else if (!nonzero) leadingZeros += 1;
      canonical = c !== ZERO;
      c = b[++i];
    } while (isDigit(c));
    // Below 1e-6 (an integer part of 0, then six zeros or more) JSON.stringify writes an exponent.
    if (nonzero && leadingZeros >= 6) return -1;
  }
  if (c === 0x65 || c === 0x45 || digits > MAX_DIGITS) return -1;
  checkedCanonical = canonical && !(negative && !nonzero);
  return i;
}

class Scan {
  private readonly b: Uint8Array;
  private readonly classes: ScanClasses;
  private i = 0;
  /** Where the last string read ends (the index of its closing quote). */
  private stringEnd = 0;
  /** Whether the last string read holds bytes outside ASCII. */
  private stringWide = false;
  /** Where the text to copy of the last number read ends, and its value. */
  private numberEnd = 0;
  private numberValue = 0;

  constructor(bytes: Uint8Array, classes: ScanClasses) {
    this.b = bytes;
    this.classes = classes;
  }

  annotation(): ScannedAnnotation {
    output.reset();
    let description = '';
    let seen = 0;
    this.openMembers();
    for (;;) {
      const key = this.key();
      if (this.isKey(key, KEY.description, 1, seen)) {
        seen |= 1;
        const start = this.nullOrString();
        if (start >= 0) description = this.decode(start, this.stringEnd);
      } else if (this.isKey(key, KEY.tags, 2, seen)) {
        seen |= 2;
        this.noTags();
      } else if (this.isKey(key, KEY.size, 4, seen)) {
        seen |= 4;
        this.size();
      } else if (this.isKey(key, KEY.objects, 8, seen)) {
        seen |= 8;
        this.objects();
      } else this.skipValue(0);
      if (!this.next(BRACE_CLOSE)) break;
    }
    this.ws();
    if (this.i !== this.b.length || (seen & 12) !== 12) decline();
    return { description, objectsJson: output.text() };
  }

  private objects(): void {
    this.expect(BRACKET_OPEN);
    output.byte(BRACKET_OPEN);
    this.ws();
    if (this.b[this.i] === BRACKET_CLOSE) {
      this.i += 1;
      output.byte(BRACKET_CLOSE);
      return;
    }
    for (let count = 1; ; count += 1) {
      if (count > MAX_OBJECTS_PER_ANNOTATION) decline();
      if (count > 1) output.byte(COMMA);
      this.object();
      this.ws();
      const c = this.b[this.i++];
      if (c === BRACKET_CLOSE) break;
      if (c !== COMMA) decline();
    }
    output.byte(BRACKET_CLOSE);
  }

  private object(): void {
    const b = this.b;
    let seen = 0;
    let titleStart = -1;
    let titleEnd = -1;
    let geometryStart = -1;
    let geometryEnd = -1;
    /** The description's string with its quotes, or -1 for none. */
    let descriptionStart = -1;
    let descriptionEnd = -1;
    let descriptionWide = false;
    let exterior: Ring | null = null;
    const interior = holes;
    interior.length = 0;
    ringsUsed = 0;

    this.openMembers();
    for (;;) {
      const key = this.key();
      if (this.isKey(key, KEY.classTitle, 1, seen)) {
        seen |= 1;
        titleStart = this.string();
        titleEnd = this.stringEnd;
      } else if (this.isKey(key, KEY.geometryType, 2, seen)) {
        seen |= 2;
        geometryStart = this.string();
        geometryEnd = this.stringEnd;
      } else if (this.isKey(key, KEY.description, 4, seen)) {
        seen |= 4;
        const start = this.nullOrString();
        if (start >= 0) {
          descriptionStart = start - 1;
          descriptionEnd = this.stringEnd + 1;
          descriptionWide = this.stringWide;
        }
      } else if (this.isKey(key, KEY.tags, 8, seen)) {
        seen |= 8;
        this.noTags();
      } else if (this.isKey(key, KEY.bitmap, 16, seen)) {
        seen |= 16;
        this.literal(LITERAL.null);
      } else if (this.isKey(key, KEY.points, 32, seen)) {
        seen |= 32;
        exterior = this.points(interior);
      } else this.skipValue(0);
      if (!this.next(BRACE_CLOSE)) break;
    }
    if (!(seen & 1) || !exterior || titleStart === titleEnd) decline();
    const found = this.classes.find(b, titleStart, titleEnd);
    if (!found || found.shape === 'bitmap') decline();
    const shape = found.shape;
    if (seen & 2 && (geometryEnd - geometryStart !== shape.length || !equalBytes(b, geometryStart, found.shapeBytes))) decline();
    const points = exterior.points;
    if (shape !== 'polygon' && interior.length > 0) decline();
    if (shape === 'point' ? points !== 1 : shape === 'rectangle' ? points !== 2 : shape === 'line' ? points < 2 : points < 3) decline();
    for (const ring of interior) if (ring.points < 3) decline();

    output.append(OUT.classTitle);
    output.append(found.json);
    if (found.wide) output.ascii = false;
    output.append(OUT.description);
    if (descriptionStart < 0) output.append(OUT.emptyString);
    else if (!descriptionWide) output.copy(b, descriptionStart, descriptionEnd);
    else {
      const text = JSON.stringify(this.decode(descriptionStart + 1, descriptionEnd - 1));
      output.reserve(Buffer.byteLength(text));
      output.length += output.bytes.write(text, output.length, 'utf8');
      output.ascii = false;
    }
    output.append(OUT.points);
    // Writing a ring that is not copied as it is reads it again: the scan then resumes here.
    const resume = this.i;
    if (shape === 'rectangle') this.writeCorners(exterior);
    else this.writeRing(exterior);
    output.append(OUT.interior);
    output.byte(BRACKET_OPEN);
    for (let k = 0; k < interior.length; k += 1) {
      if (k > 0) output.byte(COMMA);
      this.writeRing(interior[k]!);
    }
    output.byte(BRACKET_CLOSE);
    output.append(OUT.end);
    this.i = resume;
  }

  /** `{exterior, interior}`: answers the exterior; the holes go to `interior`. */
  private points(interior: Ring[]): Ring {
    let exterior: Ring | null = null;
    let seen = 0;
    this.openMembers();
    for (;;) {
      const key = this.key();
      if (this.isKey(key, KEY.exterior, 1, seen)) {
        seen |= 1;
        exterior = this.ring();
      } else if (this.isKey(key, KEY.interior, 2, seen)) {
        seen |= 2;
        this.ws();
        if (this.b[this.i] === BRACKET_OPEN) this.rings(interior);
        else this.literal(LITERAL.null);
      } else this.skipValue(0);
      if (!this.next(BRACE_CLOSE)) break;
    }
    if (!exterior) decline();
    let total = exterior.points;
    for (const ring of interior) total += ring.points;
    if (total > MAX_POINTS_PER_OBJECT) decline();
    return exterior;
  }

  private rings(into: Ring[]): void {
    this.expect(BRACKET_OPEN);
    this.ws();
    if (this.b[this.i] === BRACKET_CLOSE) {
      this.i += 1;
      return;
    }
    for (;;) {
      into.push(this.ring());
      if (!this.next(BRACKET_CLOSE)) return;
    }
  }

  /** Checks `[[x, y], …]`, the hot loop of a scan: one pass, no values read. */
  private ring(): Ring {
    this.ws();
    const b = this.b;
    let i = this.i;
    if (b[i] !== BRACKET_OPEN) decline();
    const start = i;
    let canonical = true;
    let points = 0;
    let c = b[++i];
    while (isSpace(c)) {
      canonical = false;
      c = b[++i];
    }
    if (c !== BRACKET_CLOSE) {
      for (;;) {
        if (c !== BRACKET_OPEN || points >= MAX_POINTS_PER_OBJECT) decline();
        for (let k = 0; k < 2; k += 1) {
          c = b[++i];
          while (isSpace(c)) {
            canonical = false;
            c = b[++i];
          }
          i = checkNumber(b, i);
          if (i < 0) decline();
          canonical &&= checkedCanonical;
          c = b[i];
          while (isSpace(c)) {
            canonical = false;
            c = b[++i];
          }
          if (c !== (k === 0 ? COMMA : BRACKET_CLOSE)) decline();
        }
        points += 1;
        c = b[++i];
        while (isSpace(c)) {
          canonical = false;
          c = b[++i];
        }
        if (c === BRACKET_CLOSE) break;
        if (c !== COMMA) decline();
        c = b[++i];
        while (isSpace(c)) {
          canonical = false;
          c = b[++i];
        }
      }
    }
    this.i = i + 1;
    const ring = ringsUsed < KEPT_RINGS ? (rings[ringsUsed] ??= { start: 0, end: 0, points: 0, canonical: false }) : { start: 0, end: 0, points: 0, canonical: false };
    ringsUsed += 1;
    ring.start = start;
    ring.end = i + 1;
    ring.points = points;
    ring.canonical = canonical;
    return ring;
  }

  private writeRing(ring: Ring): void {
    if (ring.canonical) {
      output.copy(this.b, ring.start, ring.end);
      return;
    }
    this.i = ring.start;
    output.byte(BRACKET_OPEN);
    this.expect(BRACKET_OPEN);
    for (let k = 0; k < ring.points; k += 1) {
      if (k > 0) {
        output.byte(COMMA);
        this.expect(COMMA);
      }
      this.expect(BRACKET_OPEN);
      output.byte(BRACKET_OPEN);
      this.writeNumber();
      this.expect(COMMA);
      output.byte(COMMA);
      this.writeNumber();
      this.expect(BRACKET_CLOSE);
      output.byte(BRACKET_CLOSE);
    }
    output.byte(BRACKET_CLOSE);
  }

  /** Reads the next number and writes it as JSON.stringify writes its value. */
  private writeNumber(): void {
    this.ws();
    const start = this.i;
    this.number();
    if (this.numberValue === 0) output.byte(ZERO);
    else output.copy(this.b, start, this.numberEnd);
  }

  /** A rectangle's corners as [[left, top], [right, bottom]], as checkGeometry orders them. */
  private writeCorners(ring: Ring): void {
    this.i = ring.start + 1;
    const starts: number[] = [];
    const ends: number[] = [];
    const values: number[] = [];
    for (let k = 0; k < 4; k += 1) {
      this.ws();
      if (k % 2 === 0) this.expect(BRACKET_OPEN);
      this.ws();
      starts.push(this.i);
      this.number();
      ends.push(this.numberEnd);
      values.push(this.numberValue);
      this.expect(k % 2 === 0 ? COMMA : BRACKET_CLOSE);
      if (k === 1) this.expect(COMMA);
    }
    const write = (k: number) => {
      if (values[k] === 0) output.byte(ZERO);
      else output.copy(this.b, starts[k]!, ends[k]!);
    };
    const [left, right] = values[0]! <= values[2]! ? [0, 2] : [2, 0];
    const [top, bottom] = values[1]! <= values[3]! ? [1, 3] : [3, 1];
    output.byte(BRACKET_OPEN);
    output.byte(BRACKET_OPEN);
    write(left);
    output.byte(COMMA);
    write(top);
    output.append(CORNERS_BETWEEN);
    write(right);
    output.byte(COMMA);
    write(bottom);
    output.byte(BRACKET_CLOSE);
    output.byte(BRACKET_CLOSE);
  }

  /**
   * A plain decimal (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`, at most 15 digits, zero or at least 1e-6 in
   * size). With at most 15 digits the text is the shortest that reads back as its double, so without
   * its trailing zeros it is what JSON.stringify writes; below 1e-6 JSON.stringify writes an exponent.
   */
  private number(): void {
    const b = this.b;
    let i = this.i;
    let negative = false;
    if (b[i] === MINUS) {
      negative = true;
      i += 1;
    }
    let digits = 0;
    let mantissa = 0;
    let c = b[i];
    if (c === ZERO) c = b[++i];
    else if (c !== undefined && c >= ONE && c <= NINE) {
      do {
        mantissa = mantissa * 10 + (c! - ZERO);
        digits += 1;
        c = b[++i];
      } while (isDigit(c));
    } else decline();
    let end = i;
    let scale = 0;
    if (c === DOT) {
      c = b[++i];
      if (!isDigit(c)) decline();
      do {
        mantissa = mantissa * 10 + (c! - ZERO);
        scale += 1;
        if (c !== ZERO) end = i + 1;
        c = b[++i];
      } while (isDigit(c));
    }
    // An exponent, or more digits than a double holds exactly.
    if (c === 0x65 || c === 0x45 || digits + scale > MAX_DIGITS) decline();
    const size = mantissa / POW10[scale]!;
    if (size !== 0 && size < 1e-6) decline();
    this.i = i;
    this.numberEnd = end;
    this.numberValue = negative ? -size : size;
  }

  /** `size`: an object whose width and height are positive integers. */
  private size(): void {
    let seen = 0;
    this.openMembers();
    for (;;) {
      const key = this.key();
      const bit = this.isKey(key, KEY.width, 1, seen) ? 1 : this.isKey(key, KEY.height, 2, seen) ? 2 : 0;
      if (bit) {
        seen |= bit;
        this.ws();
        this.number();
        if (!(this.numberValue > 0) || !Number.isInteger(this.numberValue)) decline();
      } else this.skipValue(0);
      if (!this.next(BRACE_CLOSE)) break;
    }
    if (seen !== 3) decline();
  }

  /** `tags`: null or an empty list (tags take the general path). */
  private noTags(): void {
    this.ws();
    if (this.b[this.i] !== BRACKET_OPEN) return this.literal(LITERAL.null);
    this.i += 1;
    this.expect(BRACKET_CLOSE);
  }

  /** A member's key: answers where its bytes start; they end at stringEnd. */
  private key(): number {
    const start = this.string();
    this.expect(COLON);
    return start;
  }

  /** Whether the key just read is `name`, whose bit in `seen` says it came before: twice declines. */
  private isKey(start: number, name: Uint8Array, bit: number, seen: number): boolean {
    if (this.stringEnd - start !== name.length || !equalBytes(this.b, start, name)) return false;
    if (seen & bit) decline();
    return true;
  }

  /** The start of an object every member of which is read: each object read needs a member. */
  private openMembers(): void {
    this.expect(BRACE_OPEN);
    this.ws();
    if (this.b[this.i] === BRACE_CLOSE) decline();
  }

  /** After a member or an element: true at a comma, false at `close` (the object's or array's end). */
  private next(close: number): boolean {
    this.ws();
    const c = this.b[this.i++];
    if (c === COMMA) return true;
    if (c !== close) decline();
    return false;
  }

  /** A string without escapes: answers where its bytes start; they end at stringEnd. */
  private string(): number {
    this.expect(QUOTE);
    const b = this.b;
    const start = this.i;
    let wide = false;
    let i = start;
    for (;;) {
      const c = b[i];
      if (c === QUOTE) break;
      if (c === undefined || c < SPACE || c === BACKSLASH) decline();
      if (c >= 0x80) wide = true;
      i += 1;
    }
    this.stringEnd = i;
    this.stringWide = wide;
    this.i = i + 1;
    return start;
  }

  /** null (answers -1) or a string without escapes (as string()). */
  private nullOrString(): number {
    this.ws();
    if (this.b[this.i] === QUOTE) return this.string();
    this.literal(LITERAL.null);
    return -1;
  }

  private decode(start: number, end: number): string {
    return Buffer.from(this.b.buffer, this.b.byteOffset, this.b.byteLength).toString('utf8', start, end);
  }

  private literal(word: Uint8Array): void {
    this.ws();
    if (!equalBytes(this.b, this.i, word)) decline();
    this.i += word.length;
  }

  private expect(c: number): void {
    this.ws();
    if (this.b[this.i] !== c) decline();
    this.i += 1;
  }

  private ws(): void {
    const b = this.b;
    let i = this.i;
    let c = b[i];
    while (c === SPACE || c === LF || c === CR || c === TAB) c = b[++i];
    this.i = i;
  }

  /** Any JSON value of a member the import does not read, checked as JSON.parse would. */
  private skipValue(depth: number): void {
    if (depth > MAX_SKIP_DEPTH) decline();
    this.ws();
    const b = this.b;
    const c = b[this.i];
    if (c === BRACE_OPEN) {
      this.i += 1;
      this.ws();
      if (b[this.i] === BRACE_CLOSE) {
        this.i += 1;
        return;
      }
      do {
        this.ws();
        this.skipString();
        this.expect(COLON);
        this.skipValue(depth + 1);
      } while (this.next(BRACE_CLOSE));
    } else if (c === BRACKET_OPEN) {
      this.i += 1;
      this.ws();
      if (b[this.i] === BRACKET_CLOSE) {
        this.i += 1;
        return;
      }
      do this.skipValue(depth + 1);
      while (this.next(BRACKET_CLOSE));
    } else if (c === QUOTE) this.skipString();
    else if (c === 0x74) this.literal(LITERAL.true);
    else if (c === 0x66) this.literal(LITERAL.false);
    else if (c === 0x6e) this.literal(LITERAL.null);
    else this.skipNumber();
  }

  /** Any JSON string, escapes included. */
  private skipString(): void {
    const b = this.b;
    if (b[this.i] !== QUOTE) decline();
    let i = this.i + 1;
    for (;;) {
      const c = b[i++];
      if (c === QUOTE) break;
      if (c === undefined || c < SPACE) decline();
      if (c !== BACKSLASH) continue;
      const escaped = b[i++];
      if (escaped === 0x75) {
        for (let k = 0; k < 4; k += 1) {
          const h = b[i++];
          const hex = h !== undefined && ((h >= ZERO && h <= NINE) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66));
          if (!hex) decline();
        }
      } else if (escaped === undefined || !'"\\/bfnrt'.includes(String.fromCharCode(escaped))) decline();
    }
    this.i = i;
  }

  /** Any JSON number. */
  private skipNumber(): void {
    const b = this.b;
    let i = this.i;
    if (b[i] === MINUS) i += 1;
    if (b[i] === ZERO) i += 1;
    else if (b[i] !== undefined && b[i]! >= ONE && b[i]! <= NINE) while (isDigit(b[i])) i += 1;
    else decline();
    if (b[i] === DOT) {
      i += 1;
      if (!isDigit(b[i])) decline();
      while (isDigit(b[i])) i += 1;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      i += 1;
      if (b[i] === 0x2b || b[i] === MINUS) i += 1;
      if (!isDigit(b[i])) decline();
      while (isDigit(b[i])) i += 1;
    }
    this.i = i;
  }
}
