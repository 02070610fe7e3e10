// The segment tool's mask decoder, in a Web Worker: onnxruntime-web (WebAssembly, this server's own
// copy) runs the model's ONNX decoder on the image embedding the server made, once per prompt, so a
// click costs no round trip and never holds up the page. Answers each mask as one byte a pixel.
import * as ort from 'onnxruntime-web/wasm';
import { float16ToFloat32 } from '../../src/services/float16.ts';
import type { SegmentReply, SegmentRequest } from './segment-messages.ts';

/** Bytes before an embedding's fp16 values: its shape as 4 little-endian uint32 (embeddings.service.ts). */
const HEAD_BYTES = 16;

let decoder: Promise<ort.InferenceSession> | undefined;
let embedding: { url: string; tensor: Promise<ort.Tensor> } | undefined;

/** WebAssembly threads for the decoder: up to 4 of the machine's cores when the page is isolated, else 1. */
function decoderThreads(): number {
  return self.crossOriginIsolated ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
}

async function loadDecoder(url: string, wasm: string): Promise<ort.InferenceSession> {
  ort.env.wasm.wasmPaths = { wasm };
  // Threads share memory, which only a cross-origin isolated page has (the pages send the headers
  // for it: src/http/web-app.ts); elsewhere one thread.
  ort.env.wasm.numThreads = decoderThreads();
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the decoder could not be loaded (${response.status})`);
  return ort.InferenceSession.create(new Uint8Array(await response.arrayBuffer()), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

async function loadEmbedding(url: string): Promise<ort.Tensor> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the image’s embedding could not be loaded (${response.status})`);
  const bytes = await response.arrayBuffer();
  const head = new DataView(bytes, 0, HEAD_BYTES);
  const dims = [0, 1, 2, 3].map((i) => head.getUint32(i * 4, true));
  return new ort.Tensor('float32', float16ToFloat32(new Uint16Array(bytes, HEAD_BYTES)), dims);
}

async function decode(request: Extract<SegmentRequest, { type: 'decode' }>): Promise<SegmentReply> {
  const session = await decoder!;
  const image = await embedding!.tensor;
  const started = performance.now();
  const { points, box, inputScale, width, height } = request;
  // SAM's prompt: points (1 include, 0 exclude), a box as two corners labelled 2 and 3, and a padding
  // point labelled -1 when there is no box. Coordinates in the encoder's input frame.
  const coords: number[] = [];
  const labels: number[] = [];
  for (const [x, y, include] of points) {
    coords.push(x * inputScale, y * inputScale);
    labels.push(include ? 1 : 0);
  }
  if (box) {
    coords.push(box[0] * inputScale, box[1] * inputScale, box[2] * inputScale, box[3] * inputScale);
    labels.push(2, 3);
  } else {
    coords.push(0, 0);
    labels.push(-1);
  }
  const feeds = {
    image_embeddings: image,
    point_coords: new ort.Tensor('float32', Float32Array.from(coords), [1, labels.length, 2]),
    point_labels: new ort.Tensor('float32', Float32Array.from(labels), [1, labels.length]),
    mask_input: new ort.Tensor('float32', new Float32Array(256 * 256), [1, 1, 256, 256]),
    has_mask_input: new ort.Tensor('float32', Float32Array.from([0]), [1]),
    orig_im_size: new ort.Tensor('float32', Float32Array.from([height, width]), [2]),
  };
  const output = await session.run(feeds);
  const masks = output['masks']!;
  const scores = output['iou_predictions']?.data as Float32Array | undefined;
  // An export that answers several masks: the one the model scores best.
  let best = 0;
  if (scores) for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  const [, , h = height, w = width] = masks.dims;
  const logits = masks.data as Float32Array;
  const mask = new Uint8Array(w * h);
  const offset = best * w * h;
  for (let i = 0; i < mask.length; i++) mask[i] = logits[offset + i]! > 0 ? 1 : 0;
  return { type: 'mask', id: request.id, mask, width: w, height: h, ms: performance.now() - started };
}

// onnxruntime-web starts its threads as workers of this same script, named em-pthread: those are its own.
if (!self.name.startsWith('em-pthread')) self.onmessage = (event: MessageEvent<SegmentRequest>) => {
  const request = event.data;
  const fail = (error: unknown) => self.postMessage({ type: 'error', id: 'id' in request ? request.id : 0, message: error instanceof Error ? error.message : String(error) } satisfies SegmentReply);
  if (request.type === 'load') {
    decoder = loadDecoder(request.decoder, request.wasm);
    decoder.then(() => self.postMessage({ type: 'loaded', threads: ort.env.wasm.numThreads ?? 1 } satisfies SegmentReply), fail);
  } else if (request.type === 'embedding') {
    if (embedding?.url !== request.url) embedding = { url: request.url, tensor: loadEmbedding(request.url) };
    // A first run of the decoder pays for its allocations: it is made here, before the first click.
    const warm = embedding.tensor.then(() => decode({ type: 'decode', id: 0, points: [[8, 8, true]], box: null, inputScale: 1, width: 64, height: 64 }));
    warm.then(() => self.postMessage({ type: 'ready', url: request.url } satisfies SegmentReply), fail);
  } else {
    decode(request).then((reply) => self.postMessage(reply, { transfer: reply.type === 'mask' ? [reply.mask.buffer] : [] }), fail);
  }
};
