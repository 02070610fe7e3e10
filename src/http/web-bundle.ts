// The web interface's bundle: web/main.tsx and what it imports (Preact, its CSS), built by esbuild
// into one script and one stylesheet, and chunks of what it imports on demand; the icon as it is. Built once per
// process, on first need (the server asks at start, so a first visitor does not wait), kept in
// memory; a checkout without web/ serves no interface.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WebAsset {
  /** The bytes, or for a large file served as it is, the file they are read from at each request. */
  body: Buffer | { file: string; size: number };
  contentType: string;
  etag: string;
}

export interface WebBundle {
  /** index.html, the same for every page of the interface (the page reads its own URL). */
  page: WebAsset;
  /** By file name under /assets/. */
  assets: Map<string, WebAsset>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

/** Files of web/ served as they are, beside the bundle. */
const STATIC = ['favicon.svg'];

/** The WebAssembly runtime the segment tool's decoder worker runs (its JavaScript is in the worker's bundle). */
const SEGMENT_RUNTIME = 'ort-wasm-simd-threaded.wasm';
const segmentRuntimePath = (): string => fileURLToPath(new URL(`./${SEGMENT_RUNTIME}`, import.meta.resolve('onnxruntime-web/wasm')));

function asset(body: Buffer, name: string): WebAsset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream', etag };
}

/**
 * A file served from the disk at each request: the segment tool's runtime is 14 MB, which every
 * server held in memory while few pages ever load it. Its bytes are hashed once here, for the etag,
 * a piece at a time.
 */
function fileAsset(file: string): WebAsset {
  const hash = createHash('sha256');
  const piece = Buffer.allocUnsafe(256 * 1024);
  const fd = fs.openSync(file, 'r');
  let size = 0;
  try {
    for (let read = fs.readSync(fd, piece); read > 0; read = fs.readSync(fd, piece)) {
      hash.update(piece.subarray(0, read));
      size += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  const etag = `"${hash.digest('base64url').slice(0, 27)}"`;
  return { body: { file, size }, contentType: CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', etag };
}

export async function buildWebBundle(webDir: string): Promise<WebBundle> {
  const esbuild = await import('esbuild');
  try {
    const result = await esbuild.build({
      // The segment tool's decoder runs in a Web Worker, a script of its own.
      entryPoints: { app: path.join(webDir, 'main.tsx'), 'segment-worker': path.join(webDir, 'editor', 'segment-worker.ts') },
      absWorkingDir: webDir,
      outdir: '/assets',
      write: false,
      bundle: true,
      format: 'esm',
      // What a page loads only when it needs it (the readers of COCO, Pascal VOC and YOLO, which
      // the import form wants for such a folder alone) goes in chunks of its own.
      splitting: true,
      chunkNames: 'chunk-[hash]',
      platform: 'browser',
      target: ['chrome111', 'firefox115', 'safari16'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    });
    const assets = new Map<string, WebAsset>();
    for (const file of result.outputFiles) assets.set(path.basename(file.path), asset(Buffer.from(file.contents), file.path));
    for (const name of STATIC) assets.set(name, asset(fs.readFileSync(path.join(webDir, name)), name));
    assets.set(SEGMENT_RUNTIME, fileAsset(segmentRuntimePath()));
    const html = fs.readFileSync(path.join(webDir, 'index.html'));
    return { page: asset(html, 'index.html'), assets };
  } finally {
    // esbuild's service process would otherwise live as long as this one.
    await esbuild.stop();
  }
}

/** The bundle, built once however many ask at once; a failed build is tried again at the next ask. */
export function lazyWebBundle(webDir: string): () => Promise<WebBundle> {
  let building: Promise<WebBundle> | null = null;
  return () => {
    building ??= buildWebBundle(webDir).catch((error: unknown) => {
      building = null;
      throw error;
    });
    return building;
  };
}
