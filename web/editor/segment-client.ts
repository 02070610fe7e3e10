// The page's side of the segment tool: starts the decoder worker (segment-worker.ts) on first use,
// tells it which image's embedding to fetch, and asks it for masks. Only the latest prompt's mask is
// wanted: an answer to an earlier one that arrives after it is dropped. The worker refines each mask
// from the one before until reset() says the prompts are gone.
import { type SegmentModel, embeddingUrl, getSegmentModel } from '../api.ts';
import type { PromptPoint, SegmentReply, SegmentRequest } from './segment-messages.ts';

/** The onnxruntime-web runtime, served beside the bundle (web-bundle.ts). */
const WASM_URL = '/assets/ort-wasm-simd-threaded.wasm';

export interface SegmentMask {
  /** One byte a pixel, 1 where set; `width` × `height`, the image scaled by `scale`. */
  pixels: Uint8Array;
  width: number;
  height: number;
  /** Mask pixels per image pixel (1 unless the image is larger than the encoder's input). */
  scale: number;
  /** The mask as a picture to show: a PNG (mask-picture.ts). */
  picture: Uint8Array;
  /** How long the decoder took. */
  ms: number;
}

export class SegmentClient {
  private worker: Worker | undefined;
  private model: Promise<SegmentModel> | undefined;
  private nextId = 1;
  private latest = 0;
  private readonly waiting = new Map<number, { resolve: (mask: SegmentMask | null) => void; reject: (error: Error) => void; scale: number; posted: number }>();
  /** The model, once its answer is here. */
  private modelInfo: SegmentModel | undefined;
  /** The embedding's address once the worker has it and has run the decoder on it. */
  private readyUrl: string | undefined;
  private loaded: Promise<void> | undefined;
  private image: { url: string; ready: Promise<void> } | undefined;
  private readyWaiters = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  /** The decoder's WebAssembly threads, once it is loaded. */
  threads = 1;

  /** `modelName`: a model of GET /v2/segment/models; the server's default without one. */
  constructor(private readonly modelName?: string) {}

  private start(): { worker: Worker; model: Promise<SegmentModel>; loaded: Promise<void> } {
    if (!this.worker) {
      const worker = new Worker('/assets/segment-worker.js', { type: 'module', name: 'segment' });
      worker.onmessage = (event: MessageEvent<SegmentReply>) => this.onReply(event.data);
      this.worker = worker;
      this.model = getSegmentModel(this.modelName);
      void this.model.then((model) => (this.modelInfo = model), () => undefined);
      this.loaded = this.model.then(
        (model) =>
          new Promise<void>((resolve, reject) => {
            this.readyWaiters.set('load', { resolve, reject });
            this.post({ type: 'load', decoder: model.decoder, wasm: WASM_URL });
          }),
      );
    }
    return { worker: this.worker, model: this.model!, loaded: this.loaded! };
  }

  private post(request: SegmentRequest): void {
    this.worker!.postMessage(request);
  }

  private onReply(reply: SegmentReply): void {
    if (reply.type === 'loaded') {
      this.threads = reply.threads;
      this.settle('load');
    }
    else if (reply.type === 'ready') {
      if (reply.url === this.image?.url) this.readyUrl = reply.url;
      this.settle(reply.url);
    }
    else if (reply.type === 'error') {
      const error = new Error(reply.message);
      if (reply.id && this.waiting.has(reply.id)) {
        this.waiting.get(reply.id)!.reject(error);
        this.waiting.delete(reply.id);
      } else for (const key of [...this.readyWaiters.keys()]) this.settle(key, error);
    } else {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (!waiter) return;
      // Where a click's time goes, for the browser's performance timeline (and bench/segment.ts).
      const now = performance.now();
      performance.measure('segment: posted → answered', { start: waiter.posted, end: now });
      for (const [stage, ms] of Object.entries(reply.stages)) performance.measure(`segment: worker ${stage}`, { end: now, duration: ms });
      waiter.resolve(reply.id === this.latest ? { pixels: reply.mask, picture: reply.picture, width: reply.width, height: reply.height, scale: waiter.scale, ms: reply.ms } : null);
    }
  }

  private settle(key: string, error?: Error): void {
    const waiter = this.readyWaiters.get(key);
    this.readyWaiters.delete(key);
    if (error) waiter?.reject(error);
    else waiter?.resolve();
  }

  /** Loads the decoder and the image's embedding (made by the server on first request); resolves once both are here. */
  prepare(imageId: number): Promise<void> {
    const { model, loaded } = this.start();
    const ready = (async () => {
      const { model: name } = await model;
      const url = embeddingUrl(imageId, name);
      if (this.image?.url === url) return this.image.ready;
      const embedding = new Promise<void>((resolve, reject) => {
        this.readyWaiters.set(url, { resolve, reject });
        this.post({ type: 'embedding', url });
      });
      this.image = { url, ready: embedding };
      await loaded;
      return embedding;
    })();
    return ready;
  }

  /**
   * The mask of the prompt on an image of `size`; null when a later prompt overtook it. Once the
   * decoder and the image's embedding are ready, the prompt is posted to the worker before this
   * returns, ahead of the page's own work for the click (its render).
   */
  decode(imageId: number, size: { width: number; height: number }, points: PromptPoint[], box: [number, number, number, number] | null): Promise<SegmentMask | null> {
    const model = this.modelInfo;
    if (model && this.image && this.readyUrl === this.image.url && this.image.url === embeddingUrl(imageId, model.model)) return this.postDecode(model, size, points, box);
    return this.prepare(imageId).then(async () => this.postDecode(await this.model!, size, points, box));
  }

  private postDecode(model: SegmentModel, size: { width: number; height: number }, points: PromptPoint[], box: [number, number, number, number] | null): Promise<SegmentMask | null> {
    const { inputSize } = model;
    const longest = Math.max(size.width, size.height);
    const inputScale = inputSize / longest;
    // Masks of an image larger than the encoder's input are made at the input's resolution, which
    // is all the model sees: the same outline at a fraction of the pixels to decode and trace.
    const scale = Math.min(1, inputScale);
    const id = this.nextId++;
    this.latest = id;
    return new Promise<SegmentMask | null>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, scale, posted: performance.now() });
      this.post({ type: 'decode', id, points, box, inputScale, width: Math.round(size.width * scale), height: Math.round(size.height * scale) });
    });
  }

  /** The prompts are gone: the next prompt starts a new mask instead of refining the last one. */
  reset(): void {
    if (this.worker) this.post({ type: 'reset' });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.image = undefined;
    this.readyUrl = undefined;
  }
}
