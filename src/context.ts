// The composition root: builds the database and the blob store once and hands them down.
import type { Config } from './config.ts';
import { type Db, createDb } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { ArchiveStore } from './storage/archive-store.ts';
import type { BlobStore } from './storage/blob-store.ts';
import { createArchiveStore } from './storage/create-archive-store.ts';
import { createBlobStore } from './storage/create-blob-store.ts';
import { Metrics } from './metrics/metrics.ts';
import { EmbeddingMaker } from './services/embeddings.service.ts';
import { ThumbnailMaker } from './services/thumbnails.service.ts';
import { QueuedSignal } from './tasks/queued-signal.ts';

export interface Context {
  readonly config: Config;
  readonly db: Db;
  readonly blobs: BlobStore;
  /** Export archives, on the blobs' storage. */
  readonly archives: ArchiveStore;
  /** Raised when a task is queued; this process's task runner listens to it. */
  readonly tasksQueued: QueuedSignal;
  /** Makes image thumbnails, each once, for requests and tasks of this process alike. */
  readonly thumbnails: ThumbnailMaker;
  /** Makes the segment tool's image embeddings, each once, for requests and tasks of this process alike. */
  readonly embeddings: EmbeddingMaker;
  /** This context's Prometheus registry and the counters its work reports to. */
  readonly metrics: Metrics;
  close(): Promise<void>;
}

export async function createContext(config: Config, options: { migrate?: boolean } = {}): Promise<Context> {
  const metrics = new Metrics();
  const db = await createDb(config, { onQueryError: (error) => metrics.countDatabaseError(error) });
  try {
    if (options.migrate !== false) await migrateToLatest(db);
    const blobs = await createBlobStore(config, { onFailure: (operation) => metrics.blobStoreErrors.inc({ operation }) });
    const archives = await createArchiveStore(config);
    const embeddings = new EmbeddingMaker(db, blobs, config.segment, config.limits.imagePixels);
    return {
      config,
      db,
      blobs,
      archives,
      tasksQueued: new QueuedSignal(),
      thumbnails: new ThumbnailMaker(db, blobs, config.limits.imagePixels),
      embeddings,
      metrics,
      async close() {
        await embeddings.close();
        await archives.close();
        await blobs.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
