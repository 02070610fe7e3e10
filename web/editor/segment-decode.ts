// One decoder pass of the segment tool, apart from the runtime that runs it: the worker runs it with
// onnxruntime-web (segment-worker.ts), the tests and the bench with onnxruntime-node. Each prompt
// refines the mask of the one before, as SAM's interactive predictor does: the decoder's low-resolution
// logits of the last mask go back in as `mask_input` when a point is added or removed or the box
// changes, and a stack of them, one per prompt shown, gives back the mask shown before when the last
// prompt is undone.
import type { PromptPoint } from './segment-messages.ts';

/** The decoder's low-resolution mask: 1 × 1 × 256 × 256 logits. */
const LOW_RES = 256 * 256;
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
/** A run of the decoder session. */
export type RunDecoder = (feeds: Record<string, TensorLike>) => Promise<Record<string, TensorLike>>;

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
  const output = await run({
    image_embeddings: embedding,
    point_coords: tensor(Float32Array.from(coords), [1, labels.length, 2]),
    point_labels: tensor(Float32Array.from(labels), [1, labels.length]),
    mask_input: tensor(previous?.input ?? new Float32Array(LOW_RES), [1, 1, 256, 256]),
    has_mask_input: tensor(Float32Array.from([previous?.input ? 1 : 0]), [1]),
    orig_im_size: tensor(Float32Array.from([height, width]), [2]),
  });
  const masks = output['masks']!;
  const scores = output['iou_predictions']?.data as Float32Array | undefined;
  // An export that answers several masks: the one the model scores best, and its low-resolution logits.
  let best = 0;
  if (scores) for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  const lowRes = output['low_res_masks']?.data as Float32Array | undefined;
  if (previous && lowRes && lowRes.length >= (best + 1) * LOW_RES) previous.keep(lowRes.slice(best * LOW_RES, (best + 1) * LOW_RES));
  const [, , h = height, w = width] = masks.dims;
  const logits = masks.data as Float32Array;
  const mask = new Uint8Array(w * h);
  const offset = best * w * h;
  for (let i = 0; i < mask.length; i++) mask[i] = logits[offset + i]! > 0 ? 1 : 0;
  return { mask, width: w, height: h };
}
