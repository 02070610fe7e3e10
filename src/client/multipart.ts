// multipart/form-data bodies built by hand, as a list of pieces: the files' own buffers between the
// headers, never copied into one body. FormData makes fetch pull every file through web streams
// chunk by chunk, which costs the client more CPU than the server spends receiving.
import { randomBytes } from 'node:crypto';

export interface FieldPart {
  name: string;
  value: string;
}

export interface FilePart {
  name: string;
  filename: string;
  /** In memory, or a Blob (`fs.openAsBlob`) for a file too large to hold. */
  content: Uint8Array | Blob;
}

export type Part = FieldPart | FilePart;

export interface MultipartBody {
  /** The body in order: header and delimiter buffers, and each file's content as it was given. */
  pieces: (Buffer | Blob)[];
  /** Bytes in all. */
  length: number;
  contentType: string;
}

/** Quotes a header parameter the way browsers and undici's FormData do (WHATWG HTML, "multipart/form-data encoding"). */
const quoted = (value: string): string => value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

export function multipartBody(parts: readonly Part[]): MultipartBody {
  // 32 random bytes: no content collides with the delimiter by chance.
  const boundary = `----annostore${randomBytes(24).toString('base64url')}`;
  const pieces: (Buffer | Blob)[] = [];
  for (const part of parts) {
    if ('value' in part) {
      pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part.name)}"\r\n\r\n${part.value}\r\n`));
      continue;
    }
    pieces.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part.name)}"; filename="${quoted(part.filename)}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
    );
    pieces.push(part.content instanceof Blob ? part.content : Buffer.from(part.content.buffer, part.content.byteOffset, part.content.byteLength));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  const length = pieces.reduce((n, piece) => n + (piece instanceof Blob ? piece.size : piece.length), 0);
  return { pieces, length, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The body as fetch takes it: one buffer when every piece is in memory, else a Blob that streams. */
export function fetchBody({ pieces }: MultipartBody): Buffer | Blob {
  return pieces.every((piece) => Buffer.isBuffer(piece)) ? Buffer.concat(pieces as Buffer[]) : new Blob(pieces);
}
