// The segment tool's mask decoder, in a Web Worker: onnxruntime-web (WebAssembly, this server's own
// copy) runs the model's ONNX decoder on the image embedding the server made, once per prompt, so a
// click costs no round trip and never holds up the page. Answers each mask as one byte a pixel. Each
// prompt refines the mask of the one before (segment-decode.ts) until the page resets the prompts.
import * as ort from 'onnxruntime-web/wasm';
import { float16ToFloat32 } from '../../src/services/float16.ts';
import { MASK_RGBA, maskPicture } from './mask-picture.ts';
import { MaskRefinement, type TensorLike, decodePrompt } from './segment-decode.ts';
import type { SegmentReply, SegmentRequest } from './segment-messages.ts';

/** Bytes before an embedding's fp16 values: its shape as 4 little-endian uint32 (embeddings.service.ts). */
const HEAD_BYTES = 16;

/** The warm-up's mask: the largest the tool asks for, the encoder's input frame. */
const WARM_SIDE = 1024;

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

/** The low-resolution masks of the current image's prompts, each prompt refining the one before. */
const refinement = new MaskRefinement();
/** Decodes one at a time, in the order asked: each refines the mask of the one before. */
let queue: Promise<unknown> = Promise.resolve();
function enqueue<T>(work: () => T | Promise<T>): Promise<T> {
  const next = queue.catch(() => undefined).then(work);
  queue = next;
  return next;
}

async function decode(request: Extract<SegmentRequest, { type: 'decode' }>, refine: boolean): Promise<SegmentReply> {
  const session = await decoder!;
  const image = await embedding!.tensor;
  const started = performance.now();
  let runMs = 0;
  const tensor = (data: Float32Array, dims: number[]) => new ort.Tensor('float32', data, dims);
  const run = async (feeds: Record<string, TensorLike>, outputs: string[]) => {
    const at = performance.now();
    const answer = await session.run(feeds as Record<string, ort.Tensor>, outputs);
    runMs = performance.now() - at;
    return answer;
  };
  const { mask, width, height } = await decodePrompt(request, image, tensor, run, refine ? refinement : undefined);
  const decoded = performance.now();
  const picture = maskPicture(mask, width, height, MASK_RGBA);
  const ms = decoded - started;
  return { type: 'mask', id: request.id, mask, picture, width, height, ms, stages: { run: runMs, upscale: ms - runMs, picture: performance.now() - decoded } };
}

// onnxruntime-web starts its threads as workers of this same script, named em-pthread: those are its own.
if (!self.name.startsWith('em-pthread')) self.onmessage = (event: MessageEvent<SegmentRequest>) => {
  const request = event.data;
  const fail = (error: unknown) => self.postMessage({ type: 'error', id: 'id' in request ? request.id : 0, message: error instanceof Error ? error.message : String(error) } satisfies SegmentReply);
  if (request.type === 'load') {
    decoder = loadDecoder(request.decoder, request.wasm);
    decoder.then(() => self.postMessage({ type: 'loaded', threads: ort.env.wasm.numThreads ?? 1 } satisfies SegmentReply), fail);
  } else if (request.type === 'embedding') {
    if (embedding?.url !== request.url) {
      embedding = { url: request.url, tensor: loadEmbedding(request.url) };
      void enqueue(() => refinement.reset());
    }
    // A first run of the decoder pays for its allocations, and the first upscale and picture of a
    // full-size mask for their compilation: both are made here, before the first click.
    const tensor = embedding.tensor;
    const warm = enqueue(() => tensor.then(() => decode({ type: 'decode', id: 0, points: [[8, 8, true]], box: null, inputScale: 1, width: WARM_SIDE, height: WARM_SIDE }, false)));
    warm.then(() => self.postMessage({ type: 'ready', url: request.url } satisfies SegmentReply), fail);
  } else if (request.type === 'reset') {
    void enqueue(() => refinement.reset());
  } else {
    const answer = enqueue(() => decode(request, true));
    answer.then((reply) => self.postMessage(reply, { transfer: reply.type === 'mask' ? [reply.mask.buffer, reply.picture.buffer] : [] }), fail);
  }
};
