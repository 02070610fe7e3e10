// Reads a JSON document whose top level is an object, member by member, from a stream of bytes, so a
// file of hundreds of MB is never held whole: the members a caller streams come element by element.
//
// The scanner only finds where each value ends (strings, escapes, bracket depth); every value it
// hands over is parsed on its own by JSON.parse, which checks its syntax. Members that are skipped are
// only scanned, so their syntax is checked no further than their brackets and strings.
//
// It reads plain bytes (Uint8Array, of which Node's Buffer is one) and decodes with TextDecoder, so
// the same scanner plans a COCO import in a browser.

/** How a member is read: its array elements one by one, its value whole, or not at all. */
export type MemberMode = 'elements' | 'whole' | 'skip';

export interface MemberVisitor {
  mode(key: string): MemberMode;
  /** One element of a member read as 'elements'. */
  element(key: string, index: number, value: unknown): void;
  /** The value of a 'whole' member, or of an 'elements' member whose value is not an array. */
  member(key: string, value: unknown): void;
  /** Awaited after each chunk of input: where the caller writes out what the chunk gave. */
  afterChunk?(): Promise<void>;
}

/** The document is not valid JSON; `line` and `column` (1-based) say where. */
export class JsonLocationError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = 'JsonLocationError';
  }
}

/** The largest single value (one element, one whole member) collected, in bytes. */
export const MAX_VALUE_BYTES = 64 * 1024 * 1024;

// Where the scanner is between values.
const START = 0; // before the top-level value
const FIRST_KEY = 1; // after `{`: a key or `}`
const KEY = 2; // after `,`: a key
const COLON = 3;
const VALUE = 4; // after `:`
const AFTER_VALUE = 5; // `,` or `}`
const FIRST_ELEMENT = 6; // after `[`: an element or `]`
const ELEMENT = 7; // after `,`: an element
const AFTER_ELEMENT = 8; // `,` or `]`
const END = 9; // after the top-level `}`: only white space

const BOM = [0xef, 0xbb, 0xbf];

type Target = 'key' | 'whole' | 'element' | 'skip';

/** Replaces malformed UTF-8 as Buffer#toString does, and keeps a byte order mark inside a value. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function concat(pieces: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

class MemberScanner {
  private state = START;
  private line = 1;
  /** Absolute offset of the first byte of the current line. */
  private lineStart = 0;
  /** Absolute offset of byte 0 of the chunk being scanned. */
  private base = 0;
  top: 'object' | 'array' | 'other' | null = null;

  private key = '';
  private mode: MemberMode = 'skip';
  private index = 0;

  // The value being scanned.
  private capturing = false;
  private target: Target = 'skip';
  private scalar = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private start = 0;
  private pieces: Uint8Array[] = [];
  private collected = 0;
  private startLine = 1;
  private startColumn = 1;

  constructor(private readonly visitor: MemberVisitor) {}

  private fail(reason: string, offset: number): never {
    throw new JsonLocationError(this.line, offset - this.lineStart + 1, reason);
  }

  /** Scans one chunk; answers false once the rest of the input does not matter (top level not an object). */
  feed(buf: Uint8Array): boolean {
    const n = buf.length;
    let i = 0;
    // A UTF-8 byte order mark (which JSON.parse would refuse) is passed over, however it is chunked.
    while (this.state === START && this.base + i < 3 && i < n && buf[i] === BOM[this.base + i]) this.lineStart = this.base + ++i;
    while (i < n) {
      if (this.capturing) {
        i = this.scanValue(buf, i);
        continue;
      }
      const c = buf[i]!;
      if (isSpace(c)) {
        if (c === 10) {
          this.line += 1;
          this.lineStart = this.base + i + 1;
        }
        i += 1;
        continue;
      }
      switch (this.state) {
        case START:
          if (c === 123) {
            this.top = 'object';
            this.state = FIRST_KEY;
            i += 1;
            continue;
          }
          this.top = c === 91 ? 'array' : c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110 ? 'other' : null;
          if (this.top === null) this.fail(`unexpected character ${JSON.stringify(String.fromCharCode(c))} at the start of the document`, this.base + i);
          return false;
        case FIRST_KEY:
        case KEY:
          if (c === 125 && this.state === FIRST_KEY) {
            this.state = END;
            i += 1;
            continue;
          }
          if (c !== 34) this.fail('expected a member name in double quotes', this.base + i);
          this.begin(buf, i, 'key');
          continue;
        case COLON:
          if (c !== 58) this.fail('expected ":" after the member name', this.base + i);
          this.state = VALUE;
          i += 1;
          continue;
        case VALUE:
          if (this.mode === 'elements' && c === 91) {
            this.state = FIRST_ELEMENT;
            this.index = 0;
            i += 1;
            continue;
          }
          this.begin(buf, i, this.mode === 'skip' ? 'skip' : 'whole');
          continue;
        case AFTER_VALUE:
          if (c === 44) this.state = KEY;
          else if (c === 125) this.state = END;
          else this.fail('expected "," or "}" after a member', this.base + i);
          i += 1;
          continue;
        case FIRST_ELEMENT:
        case ELEMENT:
          if (c === 93 && this.state === FIRST_ELEMENT) {
            this.state = AFTER_VALUE;
            i += 1;
            continue;
          }
          this.begin(buf, i, 'element');
          continue;
        case AFTER_ELEMENT:
          if (c === 44) this.state = ELEMENT;
          else if (c === 93) this.state = AFTER_VALUE;
          else this.fail('expected "," or "]" after an array element', this.base + i);
          i += 1;
          continue;
        default:
          this.fail('unexpected text after the end of the document', this.base + i);
      }
    }
    if (this.capturing && this.target !== 'skip') {
      this.pieces.push(buf.subarray(this.start, n));
      this.collected += n - this.start;
      if (this.collected > MAX_VALUE_BYTES) this.fail(`a single value is larger than ${MAX_VALUE_BYTES} bytes`, this.base + n);
    }
    this.start = 0;
    this.base += n;
    return true;
  }

  finish(): void {
    if (this.capturing && this.scalar) this.complete(new Uint8Array(0), 0);
    if (this.state === START) this.fail('the document is empty', this.base);
    if (this.state !== END) this.fail('the document ends early', this.base);
  }

  private begin(buf: Uint8Array, i: number, target: Target): void {
    const c = buf[i]!;
    if (c === 44 || c === 58 || c === 93 || c === 125) this.fail(`expected a value, found ${JSON.stringify(String.fromCharCode(c))}`, this.base + i);
    this.capturing = true;
    this.target = target;
    this.start = i;
    this.pieces = [];
    this.collected = 0;
    this.startLine = this.line;
    this.startColumn = this.base + i - this.lineStart + 1;
    this.scalar = c !== 123 && c !== 91 && c !== 34;
    this.depth = 0;
    this.inString = false;
    this.escape = false;
  }

  /** Scans the current value from `i`; answers where scanning goes on. */
  private scanValue(buf: Uint8Array, i: number): number {
    const n = buf.length;
    if (this.scalar) {
      for (; i < n; i++) {
        const c = buf[i]!;
        if (c === 44 || c === 93 || c === 125 || isSpace(c)) {
          this.complete(buf, i);
          return i;
        }
      }
      return n;
    }
    let { depth, inString, escape } = this;
    for (; i < n; i++) {
      const c = buf[i]!;
      if (inString) {
        if (escape) escape = false;
        else if (c === 92) escape = true;
        else if (c === 34) {
          inString = false;
          if (depth === 0) {
            this.complete(buf, i + 1);
            return i + 1;
          }
        }
      } else if (c === 34) inString = true;
      else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        if (--depth === 0) {
          this.complete(buf, i + 1);
          return i + 1;
        }
      } else if (c === 10) {
        this.line += 1;
        this.lineStart = this.base + i + 1;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escape = escape;
    return n;
  }

  /** The value ends before `end` of `buf`: parse it and hand it over. */
  private complete(buf: Uint8Array, end: number): void {
    this.capturing = false;
    const target = this.target;
    if (target !== 'skip') {
      const last = buf.subarray(this.start, end);
      const text = utf8.decode(this.pieces.length === 0 ? last : concat([...this.pieces, last], this.collected + last.length));
      this.pieces = [];
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        this.failInside(text, (error as Error).message);
      }
      if (target === 'key') {
        this.key = value as string;
        this.mode = this.visitor.mode(this.key);
      } else if (target === 'element') this.visitor.element(this.key, this.index++, value);
      else this.visitor.member(this.key, value);
    }
    this.state = target === 'key' ? COLON : target === 'element' ? AFTER_ELEMENT : AFTER_VALUE;
  }

  /** JSON.parse refused a value: its message names a position inside it where it can. */
  private failInside(text: string, message: string): never {
    const at = /position (\d+)/.exec(message);
    let line = this.startLine;
    let column = this.startColumn;
    if (at) {
      const position = Math.min(Number(at[1]), text.length);
      for (let k = 0; k < position; k++) {
        if (text.charCodeAt(k) === 10) {
          line += 1;
          column = 1;
        } else column += 1;
      }
    }
    throw new JsonLocationError(line, column, message);
  }
}

/**
 * Reads `source` (the bytes of one JSON document) member by member. Answers what the top level is;
 * for an array or a scalar nothing is read past its first character.
 */
export async function streamMembers(source: AsyncIterable<Uint8Array>, visitor: MemberVisitor): Promise<'object' | 'array' | 'other'> {
  const scanner = new MemberScanner(visitor);
  for await (const chunk of source) {
    if (!scanner.feed(chunk)) return scanner.top!;
    if (visitor.afterChunk) await visitor.afterChunk();
  }
  scanner.finish();
  return scanner.top!;
}

/** streamMembers over bytes already in memory, at once (the visitor's afterChunk is not called). */
export function scanMembers(bytes: Uint8Array, visitor: MemberVisitor): 'object' | 'array' | 'other' {
  const scanner = new MemberScanner(visitor);
  if (scanner.feed(bytes)) scanner.finish();
  return scanner.top!;
}
