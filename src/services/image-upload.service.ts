// POST /v2/datasets/:datasetId/images: images uploaded straight into a dataset. The files go through
// the v1 upload's checks and storage (completeUpload: decoded header, pixel limit, size limit, one
// blob per content however often it is sent); the images are then made in one transaction, all of
// them or, when any file or name is refused, none, each with its first revision naming the caller.
import type { Context } from '../context.ts';
import { type DatasetRow } from '../db/types.ts';
import { isUniqueViolation } from '../db/dialect.ts';
import { AppError, conflict, notFound } from '../errors.ts';
import { findDataset } from '../repositories/datasets.repository.ts';
import { type ImageMetadata, imageMetadataOf } from '../repositories/image-metadata.repository.ts';
import { findImageByName, insertImages } from '../repositories/images.repository.ts';
import { blobsByHash } from '../repositories/staging.repository.ts';
import { keyAuthor, recordNewImages } from './annotation-revisions.service.ts';
import type { ReceivedFile } from '../storage/staging.ts';
import { isValidImageName } from './identifiers.ts';
import type { Principal } from './keys.service.ts';
import { type UploadEntry, completeUpload } from './upload.service.ts';

/** One file part of the request: the image's name (the part's filename) and its received bytes. */
export interface ImageFilePart {
  name: string;
  file: ReceivedFile;
}

/** What is wrong with one file, where `index` is its place among the request's files. */
export interface FileProblem {
  index: number;
  detail: string;
}

/** A request with refused files: 400 with one entry per problem (see the route for its pointers). */
export class RefusedFiles extends AppError {
  constructor(readonly problems: FileProblem[]) {
    super('VALIDATION', `${problems.length} of the files cannot be images`, { files: problems });
  }
}

/** The dataset, if it is the team's: checked before the files are received, and again as they land. */
export async function requireUploadDataset(ctx: Context, teamId: number, datasetId: number): Promise<DatasetRow> {
  const dataset = await findDataset(ctx.db.kysely, teamId, datasetId);
  if (!dataset) throw notFound('dataset', { datasetId });
  return dataset;
}

function nameProblems(parts: ImageFilePart[]): FileProblem[] {
  const problems: FileProblem[] = [];
  const seen = new Set<string>();
  parts.forEach((part, index) => {
    if (!isValidImageName(part.name)) problems.push({ index, detail: `"${part.name}" is not a file name: no "/", "\\", control character, "." or ".."` });
    else if (seen.has(part.name)) problems.push({ index, detail: `"${part.name}" is sent more than once` });
    seen.add(part.name);
  });
  return problems;
}

/** Makes an image of every file in the dataset; answers their metadata in the order of the files. */
export async function uploadImages(ctx: Context, principal: Principal, datasetId: number, parts: ImageFilePart[]): Promise<ImageMetadata[]> {
  if (parts.length === 0) throw new AppError('VALIDATION', 'send at least one file part', { field: 'files' });
  const named = nameProblems(parts);
  if (named.length > 0) throw new RefusedFiles(named);

  const entries: UploadEntry[] = parts.map((part, index) => ({ key: String(index), metadata: '', file: part.file }));
  const metadata = parts.map((part) => ({ id: part.name, hash: undefined, type: 'image', format: 'images' }));
  const results = await completeUpload(ctx, principal, entries, metadata);
  const refused = results.flatMap((r, index) => r.errors.map((e) => ({ index, detail: `${e.code}: ${e.message}` })));
  if (refused.length > 0) throw new RefusedFiles(refused);

  const db = ctx.db.kysely;
  try {
    const ids = await db.transaction().execute(async (trx) => {
      const dataset = await findDataset(trx, principal.teamId, datasetId);
      if (!dataset) throw notFound('dataset', { datasetId });
      for (const part of parts) {
        if (await findImageByName(trx, principal.teamId, datasetId, part.name)) {
          throw conflict(`dataset ${datasetId} already has an image named "${part.name}"`, { field: 'name', name: part.name });
        }
      }
      const facts = await blobsByHash(trx, [...new Set(parts.map((p) => p.file.hash))]);
      const made = await insertImages(
        trx,
        parts.map((part) => {
          const blob = facts.get(part.file.hash)!;
          return {
            datasetId,
            projectId: dataset.project_id,
            name: part.name,
            hash: part.file.hash,
            size: part.file.size,
            width: blob.width ?? 0,
            height: blob.height ?? 0,
          };
        }),
      );
      // Each image's history starts with who uploaded it, as an import's starts with its task.
      await recordNewImages(trx, keyAuthor(principal), made.map((imageId) => ({ imageId, objectsJson: '[]' })));
      return made;
    });
    return await imageMetadataOf(db, ids);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`dataset ${datasetId} already has an image of one of these names`, { field: 'name' });
    throw error;
  }
}
