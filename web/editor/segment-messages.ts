// What the page and the segment worker (segment-worker.ts) say to each other.

/** A point prompt in image pixels: include (true) or exclude (false). */
export type PromptPoint = [number, number, boolean];

export type SegmentRequest =
  | { type: 'load'; decoder: string; wasm: string }
  | { type: 'embedding'; url: string }
  /** The prompts are gone (cleared, undone back to none): the next one starts a new mask. */
  | { type: 'reset' }
  | {
      type: 'decode';
      id: number;
      points: PromptPoint[];
      /** A box prompt in image pixels: left, top, right, bottom. */
      box: [number, number, number, number] | null;
      /** Image pixels to the encoder's input frame. */
      inputScale: number;
      /** The size the mask is answered at. */
      width: number;
      height: number;
    };

export type SegmentReply =
  | { type: 'loaded'; threads: number }
  | { type: 'ready'; url: string }
  | {
      type: 'mask';
      id: number;
      mask: Uint8Array;
      /** The mask as a picture to show (mask-picture.ts). */
      picture: Uint8Array;
      width: number;
      height: number;
      /** The decoder's time: its run and the mask scaled up from its low-resolution answer. */
      ms: number;
      /** Where the worker's time went, in ms: the decoder's run, the mask's upscaling, the picture. */
      stages: { run: number; upscale: number; picture: number };
    }
  | { type: 'error'; id: number; message: string };
