// Queues the `embeddings` task that computes the segment tool's embeddings of a dataset's images
// ahead of time, so that no one waits for the encoder at the image's first click.
import type { Context } from '../context.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import { requireDataset } from './datasets.service.ts';

export const EMBEDDINGS_TASK = 'embeddings';

export interface EmbeddingsInput {
  datasetId: number;
}

/** Queues the task for the team's dataset (a 404 for another team's) and answers its id. */
export async function queueDatasetEmbeddings(ctx: Context, principal: { teamId: number; userId: number | null }, datasetId: number): Promise<{ taskId: number }> {
  const dataset = await requireDataset(ctx.db.kysely, principal.teamId, datasetId);
  const input: EmbeddingsInput = { datasetId };
  const taskId = await tasks.createTask(ctx.db.kysely, { teamId: principal.teamId, userId: principal.userId, type: EMBEDDINGS_TASK, size: 0, meta: { made: 0, failed: 0 }, input, projectId: dataset.project_id });
  ctx.tasksQueued.notify();
  return { taskId };
}
