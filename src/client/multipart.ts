// multipart/form-data bodies built by hand. FormData makes fetch pull every file through web streams
// chunk by chunk, which costs the client more CPU than the server spends receiving; a body whose
// contents are already in memory is sent as one buffer instead.
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
  /** One buffer when every content is in memory; a Blob that streams the large files otherwise. */
  body: Buffer | Blob;
  contentType: string;
}

/** Quotes a header parameter the way browsers and undici's FormData do (WHATWG HTML, "multipart/form-data encoding"). */
const quoted = (value: string): string => value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

export function multipartBody(parts: readonly Part[]): MultipartBody {
  // 32 random bytes: no content collides with the delimiter by chance.
  const boundary = `----annostore${randomBytes(24).toString('base64url')}`;
  const pieces: (Buffer | Blob)[] = [];
  let streamed = false;
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
    if (part.content instanceof Blob) streamed = true;
    pieces.push(part.content instanceof Blob ? part.content : Buffer.from(part.content.buffer, part.content.byteOffset, part.content.byteLength));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  const contentType = `multipart/form-data; boundary=${boundary}`;
  if (!streamed) return { body: Buffer.concat(pieces as Buffer[]), contentType };
  return { body: new Blob(pieces), contentType };
}
