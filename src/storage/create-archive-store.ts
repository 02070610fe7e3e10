// Picks the archive store the Config names: beside the blobs, on the same storage.
import path from 'node:path';
import type { Config } from '../config.ts';
import type { ArchiveStore } from './archive-store.ts';
import { FsArchiveStore } from './fs-archive-store.ts';

export async function createArchiveStore(config: Config): Promise<ArchiveStore> {
  if (config.storageUrl) {
    const { S3ArchiveStore } = await import('./s3-archive-store.ts');
    return S3ArchiveStore.fromUrl(config.storageUrl);
  }
  // Under the blob folder, so the temporary files share its file system and a rename publishes.
  const root = path.join(config.dataDir, 'blobs');
  return new FsArchiveStore(path.join(root, 'archives'), path.join(root, 'tmp'));
}
