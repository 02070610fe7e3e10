// Builds multipart/form-data bodies the way v1 import clients send them.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';

export interface UploadPart {
  key: string;
  metadata: Record<string, unknown> | string;
  content?: Buffer;
  filename?: string;
  /** A Content-Type for the metadata part (a form field has none unless the client gives one). */
  metadataType?: string;
}

export function multipartBody(parts: UploadPart[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----annostore${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const metadata = typeof part.metadata === 'string' ? part.metadata : JSON.stringify(part.metadata);
    const type = part.metadataType ? `Content-Type: ${part.metadataType}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.key}"\r\n${type}\r\n${metadata}\r\n`));
    if (part.content) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.key}-file"; filename="${part.filename ?? 'file'}"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        ),
        part.content,
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A real PNG of the given size whose pixels depend on `seed`, so every seed gives other bytes. */
export async function pngImage(width: number, height: number, seed = 0): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: { r: seed % 256, g: (seed >> 8) % 256, b: (seed >> 16) % 256 } },
  })
    .png()
    .toBuffer();
}
