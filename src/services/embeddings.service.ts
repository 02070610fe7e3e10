// Image embeddings for the segment tool, made once per image blob and model: a stored one is read
// back, a missing one is encoded (segment-encoder.ts), stored in the blob store under the hash of its
// bytes, then recorded. Calls in this process for the same embedding share one run; across processes
// the first record wins and a loser's bytes are removed.
//
// The model is named by the hash of its two files, so an embedding's URL changes with the model and
// can be cached for good; the decoder the browser runs is the one the same name stands for.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { SegmentSettings } from '../config.ts';
import type { Db } from '../db/create-db.ts';
import { AppError } from '../errors.ts';
import * as embeddings from '../repositories/embeddings.repository.ts';
import type { EmbeddingRecord } from '../repositories/embeddings.repository.ts';
import * as thumbnails from '../repositories/thumbnails.repository.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { INPUT_SIZE, SegmentEncoder } from './segment-encoder.ts';

export interface SegmentModelInfo {
  /** `sam-` and 16 hex digits of the SHA-256 of the encoder and the decoder. */
  model: string;
  /** The side of the encoder's square input: an image is scaled so its longest side is this. */
  inputSize: number;
  decoderBytes: number;
}

/** A model's two files, and its name (the default's, or a catalogue model's: segment-models.service.ts). */
export interface ModelFiles {
  model: string;
  encoderPath: string;
  decoderPath: string;
}

/** Bytes before an embedding's values: its shape, 4 little-endian uint32 (1, 256, 64, 64). */
export const EMBEDDING_HEAD_BYTES = 16;

export class EmbeddingMaker {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly settings: SegmentSettings;
  private readonly encoder: SegmentEncoder;
  /** Encoders of models other than the configured one, by encoder file. */
  private readonly others = new Map<string, SegmentEncoder>();
  private readonly making = new Map<string, Promise<EmbeddingRecord>>();
  private info: Promise<SegmentModelInfo> | undefined;

  private readonly maxPixels: number;

  constructor(db: Db, blobs: BlobStore, settings: SegmentSettings, maxPixels: number) {
    this.maxPixels = maxPixels;
    this.db = db;
    this.blobs = blobs;
    this.settings = settings;
    this.encoder = new SegmentEncoder(settings, maxPixels);
  }

  /** Images this process has encoded. */
  get encoded(): number {
    return [...this.others.values()].reduce((n, e) => n + e.encoded, this.encoder.encoded);
  }

  private encoderOf(files: ModelFiles | undefined): SegmentEncoder {
    if (!files || files.encoderPath === this.settings.encoderPath) return this.encoder;
    let encoder = this.others.get(files.encoderPath);
    if (!encoder) {
      encoder = new SegmentEncoder({ ...this.settings, encoderPath: files.encoderPath, decoderPath: files.decoderPath }, this.maxPixels);
      this.others.set(files.encoderPath, encoder);
    }
    return encoder;
  }

  /** The configured model: its name, read once from its files. */
  model(): Promise<SegmentModelInfo> {
    this.info ??= (async () => {
      const hash = createHash('sha256');
      let decoderBytes = 0;
      for (const file of [this.settings.encoderPath, this.settings.decoderPath]) {
        let bytes: Buffer;
        try {
          bytes = await fs.readFile(file);
        } catch (error) {
          const missing = new AppError('INTERNAL', 'the segment model cannot be read');
          missing.cause = error;
          throw missing;
        }
        hash.update(bytes);
        decoderBytes = bytes.length;
      }
      return { model: `sam-${hash.digest('hex').slice(0, 16)}`, inputSize: INPUT_SIZE, decoderBytes };
    })();
    this.info.catch(() => (this.info = undefined));
    return this.info;
  }

  /** The decoder's bytes, for the browser: the configured model's, or those of `files`. */
  decoder(files?: ModelFiles): Promise<Buffer> {
    return fs.readFile(files?.decoderPath ?? this.settings.decoderPath);
  }

  /**
   * The stored embedding of the image blob `hash` by the configured model (or by the model of
   * `files`), made first when there is none. Embeddings are kept per image blob and model name.
   */
  async embedding(hash: string, files?: ModelFiles): Promise<EmbeddingRecord & { model: string }> {
    const model = files?.model ?? (await this.model()).model;
    const stored = await embeddings.findEmbedding(this.db.kysely, hash, model);
    if (stored) return { ...stored, model };
    const runningKey = `${model} ${hash}`;
    let running = this.making.get(runningKey);
    if (!running) {
      running = this.make(hash, model, this.encoderOf(files)).finally(() => this.making.delete(runningKey));
      this.making.set(runningKey, running);
    }
    return { ...(await running), model };
  }

  /** Makes the embedding of `hash` unless it is stored; answers whether it made one. */
  async ensure(hash: string): Promise<boolean> {
    const { model } = await this.model();
    if (await embeddings.findEmbedding(this.db.kysely, hash, model)) return false;
    await this.embedding(hash);
    return true;
  }

  private async make(hash: string, model: string, encoder: SegmentEncoder): Promise<EmbeddingRecord> {
    const image = await this.blobs.readBytes(hash);
    const { values, dims } = await encoder.encode(image);
    // The shape leads the bytes: 4 little-endian uint32 values, so a stored embedding describes itself.
    const head = Buffer.alloc(EMBEDDING_HEAD_BYTES);
    for (let i = 0; i < 4; i++) head.writeUInt32LE(dims[i] ?? 1, i * 4);
    const bytes = Buffer.concat([head, Buffer.from(values.buffer, values.byteOffset, values.byteLength)]);
    const key = createHash('sha256').update(bytes).digest('base64');
    // Bytes first, row after: a recorded embedding always has its bytes.
    await this.blobs.putBytes(key, bytes);
    const record = await embeddings.recordEmbedding(this.db.kysely, hash, model, { key, bytes: bytes.length });
    if (record.key !== key && !(await thumbnails.keyInUse(this.db.kysely, key))) await this.blobs.delete(key);
    return record;
  }

  async close(): Promise<void> {
    // One after the other: ONNX Runtime's sessions are best not torn down in two threads at once.
    for (const encoder of [this.encoder, ...this.others.values()]) await encoder.close();
  }
}
