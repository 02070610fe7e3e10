// The `supervisely` output layer: what reaches it becomes a new project of the team, with the
// graph's output classes and tags, a dataset per output dataset, and the images. An image whose
// pixels no layer changed keeps its stored blob; a changed one is encoded and stored as a new blob.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.ts';
import { serializeObjects, toAnnotationObject } from '../../formats/canonical.ts';
import * as datasets from '../../repositories/datasets.repository.ts';
import * as dtlRepo from '../../repositories/dtl.repository.ts';
import * as images from '../../repositories/images.repository.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { DtlItem } from '../../dtl/item.ts';
import { OutputNames, encodeImage } from '../../dtl/output.ts';
import { type RevisionAuthor, recordNewImages } from '../../services/annotation-revisions.service.ts';
import type { Plan } from '../../dtl/validate.ts';

export class ProjectOutput {
  private readonly names: OutputNames;
  private readonly datasetIds = new Map<string, number>();
  private readonly onlyAnnotated: boolean;

  private constructor(
    private readonly blobs: BlobStore,
    readonly projectId: number,
    private readonly tagIds: Map<string, number>,
    /** The task, as the author of each image's first revision. */
    private readonly author: RevisionAuthor,
    plan: Plan,
    seed: string | number,
  ) {
    this.names = new OutputNames(seed);
    this.onlyAnnotated = plan.output.settings.only_annotated === true;
  }

  /** The new project, titled by the output layer's `dst`. */
  static async create(db: Kysely<Database>, blobs: BlobStore, teamId: number, userId: number | null, plan: Plan, seed: string | number, author: RevisionAuthor): Promise<ProjectOutput> {
    const { classes, name } = plan.output;
    const { projectId, tagIds } = await db.transaction().execute((trx) => dtlRepo.insertOutputProject(trx, teamId, name, classes.classes, classes.tags, userId));
    return new ProjectOutput(blobs, projectId, tagIds, author, plan, seed);
  }

  /** The blob of the item's image: the stored one, or its pixels encoded and stored. */
  private async blobOf(db: Kysely<Database>, item: DtlItem): Promise<{ hash: string; size: number }> {
    if (item.image.hash !== null) {
      const size = await dtlRepo.blobSize(db, item.image.hash);
      if (size !== undefined) return { hash: item.image.hash, size };
    }
    const bytes = await encodeImage(await item.image.raw(), item.name);
    const hash = createHash('sha256').update(bytes).digest('base64');
    await this.blobs.putBytes(hash, bytes);
    const { width, height } = item.annotation.size;
    await images.ensureBlob(db, { hash, size: bytes.length, mediaType: /\.jpe?g$/i.test(item.name) ? 'image/jpeg' : 'image/png', width, height });
    return { hash, size: bytes.length };
  }

  /** Writes the items one image became, each in a transaction of its own. */
  async add(db: Kysely<Database>, items: readonly DtlItem[]): Promise<number> {
    let written = 0;
    for (const item of items) {
      if (this.onlyAnnotated && item.annotation.objects.length === 0) continue;
      const blob = await this.blobOf(db, item);
      await db.transaction().execute(async (trx) => {
        let datasetId = this.datasetIds.get(item.dataset);
        if (datasetId === undefined) {
          datasetId = await datasets.insertDataset(trx, this.projectId, item.dataset);
          this.datasetIds.set(item.dataset, datasetId);
        }
        const imageTags = item.annotation.tags.flatMap((t) => {
          const tagId = this.tagIds.get(`images/${t.name}`);
          return tagId === undefined ? [] : [{ tagId, value: t.value }];
        });
        const figureTags = new Set<number>();
        for (const o of item.annotation.objects) for (const t of o.tags) if (this.tagIds.has(`figures/${t.name}`)) figureTags.add(this.tagIds.get(`figures/${t.name}`)!);
        const { width, height } = item.annotation.size;
        const objectsJson = serializeObjects(item.annotation.objects.map(toAnnotationObject));
        const imageId = await dtlRepo.insertOutputImage(
          trx,
          {
            datasetId,
            projectId: this.projectId,
            name: this.names.claim(item.dataset, item.name),
            hash: blob.hash,
            size: blob.size,
            width,
            height,
            description: item.annotation.description,
            objectsJson,
          },
          imageTags,
          [...figureTags],
        );
        await recordNewImages(trx, this.author, [{ imageId, objectsJson }]);
      });
      written += 1;
    }
    return written;
  }
}
