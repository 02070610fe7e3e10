// Picks the blob store the Config names.
import path from 'node:path';
import type { Config } from '../config.ts';
import type { BlobStore } from './blob-store.ts';
import { countingFailures } from './counted-blob-store.ts';
import { FsBlobStore } from './fs-blob-store.ts';

export interface BlobStoreOptions {
  /** Told of every failed call (the metrics count them). */
  onFailure?: (operation: string) => void;
}

export async function createBlobStore(config: Config, options: BlobStoreOptions = {}): Promise<BlobStore> {
  const store = await openBlobStore(config);
  return options.onFailure ? countingFailures(store, options.onFailure) : store;
}

async function openBlobStore(config: Config): Promise<BlobStore> {
  if (config.storageUrl) {
    const { S3BlobStore } = await import('./s3-blob-store.ts');
    return S3BlobStore.fromUrl(config.storageUrl);
  }
  return new FsBlobStore(path.join(config.dataDir, 'blobs'));
}
