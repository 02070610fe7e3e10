// The thread of segment-encoder.ts: runs a Segment Anything-class image encoder with onnxruntime-node
// on the CPU, so a second or more of inference never holds the server's event loop. It takes an image
// already resized to fit the model's square input (RGB, 8 bits), normalises and pads it as SAM does,
// and answers the embedding in fp16 (half the bytes to store and send; the decoder reads it back as
// float32 with no loss that shows in a mask).
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import { float32ToFloat16 } from './float16.ts';

export interface EncoderThreadData {
  encoderPath: string;
  /** Cores one inference may use. */
  threads: number;
  /** The side of the model's square input (1024 for SAM and its descendants). */
  inputSize: number;
}

export interface EncodeRequest {
  id: number;
  /** width × height × 3 bytes, row-major RGB; width and height at most inputSize. */
  rgb: Uint8Array;
  width: number;
  height: number;
}

export type EncodeReply = { id: number; embedding: Uint16Array; dims: number[] } | { id: number; error: string };

// SAM's pixel mean and standard deviation (ImageNet's, on the 0–255 scale).
const MEAN = [123.675, 116.28, 103.53];
const STD = [58.395, 57.12, 57.375];

const data = workerData as EncoderThreadData;
const session = ort.InferenceSession.create(data.encoderPath, { intraOpNumThreads: data.threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });

async function encode({ rgb, width, height }: EncodeRequest): Promise<{ embedding: Uint16Array; dims: number[] }> {
  const size = data.inputSize;
  const plane = size * size;
  // Padding stays 0, the normalised mean, as SAM pads after normalising.
  const input = new Float32Array(3 * plane);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 3;
      const to = y * size + x;
      input[to] = (rgb[from]! - MEAN[0]!) / STD[0]!;
      input[plane + to] = (rgb[from + 1]! - MEAN[1]!) / STD[1]!;
      input[2 * plane + to] = (rgb[from + 2]! - MEAN[2]!) / STD[2]!;
    }
  }
  const encoder = await session;
  const feeds = { [encoder.inputNames[0]!]: new ort.Tensor('float32', input, [1, 3, size, size]) };
  const output = (await encoder.run(feeds))[encoder.outputNames[0]!]!;
  return { embedding: float32ToFloat16(output.data as Float32Array), dims: [...output.dims] };
}

/** The encodings under way: the session is not released while one still runs. */
const running = new Set<Promise<unknown>>();

parentPort!.on('message', (request: EncodeRequest | { close: true }) => {
  if ('close' in request) {
    // The session is released here, in its own thread, before the thread is stopped, and only once no
    // encoding runs on it: an ONNX Runtime session released mid-run, or still alive while its thread
    // is torn down, aborts the whole process.
    void Promise.allSettled(running)
      .then(() => session)
      .then((encoder) => encoder.release())
      .catch(() => undefined)
      .finally(() => parentPort!.postMessage({ closed: true }));
    return;
  }
  const encoding = encode(request);
  running.add(encoding);
  void encoding.catch(() => undefined).finally(() => running.delete(encoding));
  encoding.then(
    ({ embedding, dims }) => parentPort!.postMessage({ id: request.id, embedding, dims } satisfies EncodeReply, [embedding.buffer as ArrayBuffer]),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies EncodeReply),
  );
});
