// One decoder pass of the segment tool, apart from the runtime that runs it: the worker runs it with
// onnxruntime-web (segment-worker.ts), the tests and the bench with onnxruntime-node. Each prompt
// refines the mask of the one before, as SAM's interactive predictor does: the decoder's low-resolution
// logits of the last mask go back in as `mask_input` when a point is added or removed or the box
// changes, and a stack of them, one per prompt shown, gives back the mask shown before when the last
// prompt is undone.
import type { PromptPoint } from './segment-messages.ts';

/** The decoder's low-resolution mask: 1 × 1 × 256 × 256 logits. */
const LOW_SIDE = 256;
const LOW_RES = LOW_SIDE * LOW_SIDE;
/** The encoder's input frame, whose longest side the image is scaled to: 4 × the low-resolution side. */
const INPUT_SIDE = 1024;
/**
 * The outputs asked of the decoder. Its `masks` output is the low-resolution mask scaled up in the
 * graph to the input frame and then to `orig_im_size`, two bilinear passes over a million pixels or
 * more, for every mask it scores; asked only for these, the runtime leaves those nodes out, and
 * upscaleMask makes the same mask from the one best-scored low-resolution mask.
 */
export const DECODER_OUTPUTS = ['iou_predictions', 'low_res_masks'];
/** Prompts whose low-resolution masks are kept for undo; older ones are forgotten (1 MiB each 4). */
const MAX_KEPT = 64;

export interface DecodePrompt {
  points: PromptPoint[];
  /** Left, top, right, bottom in image pixels. */
  box: [number, number, number, number] | null;
  /** Image pixels to the encoder's input frame. */
  inputScale: number;
  /** The size the mask is answered at. */
  width: number;
  height: number;
}

export interface TensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
}
/** A float32 tensor of the runtime in use. */
export type MakeTensor = (data: Float32Array, dims: number[]) => TensorLike;
/** A run of the decoder session, answering the outputs named. */
export type RunDecoder = (feeds: Record<string, TensorLike>, outputs: string[]) => Promise<Record<string, TensorLike>>;

/**
 * The low-resolution masks of the prompts shown on one image since its prompts were last cleared,
 * the latest last. Keyed by the prompt they answered, so a prompt seen before (an undo) is decoded
 * again from the mask before it, which gives back the same mask.
 */
export class MaskRefinement {
  private kept: { key: string; lowRes: Float32Array }[] = [];

  /** Prompts cleared, undone back to none, or another image: the next prompt starts afresh. */
  reset(): void {
    this.kept = [];
  }

  /** How many prompts' masks are kept. */
  get depth(): number {
    return this.kept.length;
  }

  /** The mask to refine for this prompt (null: none), and where its answer is kept. */
  previousFor(prompt: Pick<DecodePrompt, 'points' | 'box'>): { input: Float32Array | null; keep: (lowRes: Float32Array) => void } {
    const key = JSON.stringify([prompt.points, prompt.box]);
    const seen = this.kept.findIndex((k) => k.key === key);
    // An undo to a prompt shown before: decoded again from the mask before it; the later ones go.
    // Anything else (a point added or removed, a new box) refines the latest mask.
    const at = seen >= 0 ? seen : this.kept.length;
    const input = at > 0 ? this.kept[at - 1]!.lowRes : null;
    return {
      input,
      keep: (lowRes) => {
        this.kept.length = at;
        this.kept.push({ key, lowRes });
        if (this.kept.length > MAX_KEPT) this.kept.shift();
      },
    };
  }
}

/**
 * The mask of a prompt, one byte a pixel (1 inside), at the prompt's size. With `refinement`, the
 * prompt refines the previous mask and its own low-resolution mask is kept for the next.
 */
export async function decodePrompt(
  prompt: DecodePrompt,
  embedding: TensorLike,
  tensor: MakeTensor,
  run: RunDecoder,
  refinement?: MaskRefinement,
): Promise<{ mask: Uint8Array; width: number; height: number }> {
  const { points, box, inputScale, width, height } = prompt;
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
  const previous = refinement?.previousFor(prompt);
  const output = await run(
    {
      image_embeddings: embedding,
      point_coords: tensor(Float32Array.from(coords), [1, labels.length, 2]),
      point_labels: tensor(Float32Array.from(labels), [1, labels.length]),
      mask_input: tensor(previous?.input ?? new Float32Array(LOW_RES), [1, 1, 256, 256]),
      has_mask_input: tensor(Float32Array.from([previous?.input ? 1 : 0]), [1]),
      orig_im_size: tensor(Float32Array.from([height, width]), [2]),
    },
    DECODER_OUTPUTS,
  );
  const scores = output['iou_predictions']?.data as Float32Array | undefined;
  const lowRes = output['low_res_masks']!.data as Float32Array;
  // An export that answers several masks: the one the model scores best.
  let best = 0;
  if (scores) for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  const logits = lowRes.subarray(best * LOW_RES, (best + 1) * LOW_RES);
  if (previous) previous.keep(logits.slice());
  return { mask: upscaleMask(logits, width, height), width, height };
}

/**
 * For each of `size` output pixels on one axis, the 4 low-resolution pixels it is made of and their
 * weights: SAM's postprocessing, composed. The low-resolution mask is scaled up bilinearly to the
 * input frame (4×), cropped to the image's part of it (`crop` pixels on this axis), and that scaled
 * bilinearly to `size`; both passes with half-pixel centres and edges clamped, as PyTorch's
 * `interpolate(align_corners=False)` and the ONNX Resize of the exported graph do.
 */
function axisTaps(size: number, crop: number): { index: Int32Array; weight: Float32Array } {
  const index = new Int32Array(size * 4);
  const weight = new Float32Array(size * 4);
  const fromInput = (j: number, w: number, at: number) => {
    const source = Math.max(0, (j + 0.5) * (LOW_SIDE / INPUT_SIDE) - 0.5);
    const k = Math.min(Math.floor(source), LOW_SIDE - 1);
    const f = source - k;
    index[at] = k;
    weight[at] = w * (1 - f);
    index[at + 1] = Math.min(k + 1, LOW_SIDE - 1);
    weight[at + 1] = w * f;
  };
  for (let i = 0; i < size; i++) {
    const source = Math.max(0, (i + 0.5) * (crop / size) - 0.5);
    const j = Math.min(Math.floor(source), crop - 1);
    const f = source - j;
    fromInput(j, 1 - f, i * 4);
    fromInput(Math.min(j + 1, crop - 1), f, i * 4 + 2);
  }
  return { index, weight };
}

/**
 * The mask at `width` × `height`, one byte a pixel (1 where the logit is above 0), from the decoder's
 * 256 × 256 low-resolution logits: what the graph's `masks` output would be for an `orig_im_size` of
 * that size, at a fraction of the work. Each output pixel is a weighted mean (weights ≥ 0) of the
 * low-resolution logits in a 3 × 3 block at most, so where a block's logits all have one sign, the
 * pixels made of it have that sign and nothing is computed; only along the mask's outline are the
 * two bilinear passes done (separable: along rows, then down columns).
 */
export function upscaleMask(logits: Float32Array, width: number, height: number): Uint8Array {
  // The image's part of the input frame: its longest side scaled to the frame's, rounded.
  const frame = INPUT_SIDE / Math.max(width, height);
  const columns = axisTaps(width, Math.min(INPUT_SIDE, Math.floor(width * frame + 0.5)));
  const rows = axisTaps(height, Math.min(INPUT_SIDE, Math.floor(height * frame + 0.5)));
  // Each block of 3 × 3 logits from (r, c) down and right (clamped at the edges): 1 all above 0, -1
  // none, 0 mixed. Counted along rows, then the counts summed down columns.
  const last = LOW_SIDE - 1;
  const aboveAcross = new Uint8Array(LOW_RES);
  for (let r = 0; r < LOW_SIDE; r++) {
    const row = r * LOW_SIDE;
    for (let c = 0; c < LOW_SIDE; c++) aboveAcross[row + c] = (logits[row + c]! > 0 ? 1 : 0) + (logits[row + Math.min(c + 1, last)]! > 0 ? 1 : 0) + (logits[row + Math.min(c + 2, last)]! > 0 ? 1 : 0);
  }
  const sign = new Int8Array(LOW_RES);
  const needRow = new Uint8Array(LOW_SIDE);
  for (let r = 0; r < LOW_SIDE; r++) {
    const [a, b, c] = [r * LOW_SIDE, Math.min(r + 1, last) * LOW_SIDE, Math.min(r + 2, last) * LOW_SIDE];
    for (let col = 0; col < LOW_SIDE; col++) {
      const above = aboveAcross[a + col]! + aboveAcross[b + col]! + aboveAcross[c + col]!;
      const block = above === 9 ? 1 : above === 0 ? -1 : 0;
      sign[a + col] = block;
      if (block === 0) needRow[r] = needRow[Math.min(r + 1, last)] = needRow[Math.min(r + 2, last)] = 1;
    }
  }
  // The first (lowest) low-resolution column of each output column's taps; runs of equal ones.
  const firstColumn = new Int32Array(width);
  for (let x = 0; x < width; x++) firstColumn[x] = columns.index[x * 4]!;
  // Along rows, only the low-resolution rows some mixed block reads.
  const across = new Float32Array(LOW_SIDE * width);
  const ci = columns.index;
  const cw = columns.weight;
  for (let r = 0; r < LOW_SIDE; r++) {
    if (!needRow[r]) continue;
    const row = r * LOW_SIDE;
    const out = r * width;
    for (let x = 0, t = 0; x < width; x++, t += 4) {
      across[out + x] = cw[t]! * logits[row + ci[t]!]! + cw[t + 1]! * logits[row + ci[t + 1]!]! + cw[t + 2]! * logits[row + ci[t + 2]!]! + cw[t + 3]! * logits[row + ci[t + 3]!]!;
    }
  }
  const mask = new Uint8Array(width * height);
  for (let y = 0, t = 0; y < height; y++, t += 4) {
    const blocks = rows.index[t]! * LOW_SIDE;
    const [r0, r1, r2, r3] = [rows.index[t]! * width, rows.index[t + 1]! * width, rows.index[t + 2]! * width, rows.index[t + 3]! * width];
    const [w0, w1, w2, w3] = [rows.weight[t]!, rows.weight[t + 1]!, rows.weight[t + 2]!, rows.weight[t + 3]!];
    const out = y * width;
    for (let x = 0; x < width; ) {
      const c = firstColumn[x]!;
      let end = x + 1;
      while (end < width && firstColumn[end] === c) end++;
      const block = sign[blocks + c]!;
      if (block === 1) mask.fill(1, out + x, out + end);
      else if (block === 0) for (let i = x; i < end; i++) mask[out + i] = w0 * across[r0 + i]! + w1 * across[r1 + i]! + w2 * across[r2 + i]! + w3 * across[r3 + i]! > 0 ? 1 : 0;
      x = end;
    }
  }
  return mask;
}
