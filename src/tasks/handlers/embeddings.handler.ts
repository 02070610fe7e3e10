// The embeddings task: computes the segment tool's embedding of each image of a dataset that has none
// by the configured model, one image at a time (an encoding takes the cores it is given), a page of
// images per checkpoint. What is made is skipped, so a resumed task only finishes the rest.
import * as embeddingTasks from '../../repositories/embedding-tasks.repository.ts';
import type { EmbeddingsInput } from '../../services/embedding-tasks.ts';
import type { TaskHandler } from '../handler.ts';

const PAGE = 8;

interface Progress {
  made: number;
  failed: number;
  /** The last image id done, for a resumed attempt to start after. */
  after: number;
}

export const embeddingsHandler: TaskHandler = async (run) => {
  const { datasetId } = run.input as EmbeddingsInput;
  const previous = run.meta as Partial<Progress>;
  const progress: Progress = { made: previous.made ?? 0, failed: previous.failed ?? 0, after: previous.after ?? 0 };
  const db = run.ctx.db.kysely;
  const total = await embeddingTasks.countDatasetImages(db, datasetId);
  let done = (run.meta as { progress?: { done?: number } }).progress?.done ?? 0;
  for (;;) {
    const page = await embeddingTasks.datasetImagesAfter(db, datasetId, progress.after, PAGE);
    if (page.length === 0) break;
    for (const image of page) {
      try {
        if (await run.ctx.embeddings.ensure(image.hash)) progress.made += 1;
      } catch {
        // An image that cannot be decoded: its embedding is asked for again at its first click, which says why.
        progress.failed += 1;
      }
    }
    progress.after = page.at(-1)!.id;
    done += page.length;
    await run.checkpoint({ done: Math.min(done, total), total }, { ...progress });
  }
};
