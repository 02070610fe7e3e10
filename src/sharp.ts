// sharp brings libvips, about 30 MB of a process's memory. It is loaded when the first image is read,
// so a server or worker that only imports what was uploaded earlier, or serves, never holds it.
import type SharpModule from 'sharp';

export type Sharp = typeof SharpModule;

let loading: Promise<Sharp> | undefined;

export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then((module) => {
    // libvips keeps the results of its last operations (up to 50 MB) for one asked again. Ours are
    // each of another image (a thumbnail, a check of an upload), and the thumbnails are kept as files:
    // an import making thumbnails alongside held 26 MB more for nothing.
    module.default.cache(false);
    return module.default;
  });
  return loading;
}
