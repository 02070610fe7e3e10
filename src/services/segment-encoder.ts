// The segment tool's image encoder, run in a thread of its own (segment-encoder-thread.ts) started on
// first use: an image is decoded and resized here with sharp (which works off the event loop too),
// encoded there. One image at a time: an encoding already takes every core it is given.
import type { Worker } from 'node:worker_threads';
import { Slots } from '../concurrency.ts';
import type { SegmentSettings } from '../config.ts';
import { AppError } from '../errors.ts';
import { loadSharp } from '../sharp.ts';
import { startModuleThread } from '../threads.ts';
import type { EncodeReply, EncodeRequest, EncoderThreadData } from './segment-encoder-thread.ts';

/** The side of the square input of SAM's encoder and of every export with its interface. */
export const INPUT_SIZE = 1024;

export interface Embedding {
  /** fp16 bits, row-major over `dims`. */
  values: Uint16Array;
  dims: number[];
}

export class SegmentEncoder {
  private readonly settings: SegmentSettings;
  private readonly maxPixels: number;
  private readonly slots = new Slots(1);
  private readonly pending = new Map<number, { resolve: (e: Embedding) => void; reject: (error: Error) => void }>();
  private worker: Worker | undefined;
  private nextId = 1;
  private encodings = 0;

  constructor(settings: SegmentSettings, maxPixels: number) {
    this.settings = settings;
    this.maxPixels = maxPixels;
  }

  /** Images this process has encoded. */
  get encoded(): number {
    return this.encodings;
  }

  /** The embedding of an image file's bytes (any format sharp reads), as displayed (EXIF orientation applied). */
  async encode(image: Buffer): Promise<Embedding> {
    const sharp = await loadSharp();
    let rgb: Buffer;
    let info: { width: number; height: number };
    try {
      ({ data: rgb, info } = await sharp(image, { limitInputPixels: this.maxPixels })
        .rotate()
        .resize(INPUT_SIZE, INPUT_SIZE, { fit: 'inside' })
        .flatten({ background: '#ffffff' })
        .toColourspace('srgb')
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true }));
    } catch (error) {
      const refused = new AppError('UNSUPPORTED_MEDIA_TYPE', 'the image cannot be decoded to compute its embedding');
      refused.cause = error;
      throw refused;
    }
    return this.slots.run(() => this.run({ id: this.nextId++, rgb: new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.length), width: info.width, height: info.height }));
  }

  private run(request: EncodeRequest): Promise<Embedding> {
    const worker = this.thread();
    return new Promise<Embedding>((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      worker.postMessage(request);
    }).finally(() => {
      this.pending.delete(request.id);
      // An idle thread does not keep the process alive.
      if (this.pending.size === 0) this.worker?.unref();
    });
  }

  private thread(): Worker {
    if (!this.worker) {
      const workerData: EncoderThreadData = { encoderPath: this.settings.encoderPath, threads: this.settings.threads, inputSize: INPUT_SIZE };
      const worker = startModuleThread(new URL('./segment-encoder-thread.ts', import.meta.url), { workerData });
      worker.on('message', (reply: EncodeReply) => {
        const waiting = this.pending.get(reply.id);
        if (!waiting) return;
        if ('error' in reply) waiting.reject(new Error(`the segment encoder failed: ${reply.error}`));
        else {
          this.encodings += 1;
          waiting.resolve({ values: reply.embedding, dims: reply.dims });
        }
      });
      const fail = (error: Error) => {
        for (const waiting of this.pending.values()) waiting.reject(error);
        this.pending.clear();
        this.worker = undefined;
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the segment encoder thread stopped (exit code ${code})`)));
      this.worker = worker;
    }
    this.worker.ref();
    return this.worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    // Let the thread finish the encoding under way and release its ONNX Runtime session first
    // (segment-encoder-thread.ts), for at most a minute: one encoding takes seconds, more on a busy machine.
    worker.ref();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      worker.on('message', (reply: { closed?: true }) => {
        if (reply.closed) {
          clearTimeout(timer);
          resolve();
        }
      });
      worker.on('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ close: true });
    });
    await worker.terminate();
  }
}
