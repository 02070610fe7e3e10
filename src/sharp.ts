// sharp brings libvips, about 30 MB of a process's memory. It is loaded when the first image is read,
// so a server or worker that only imports what was uploaded earlier, or serves, never holds it.
import type SharpModule from 'sharp';

export type Sharp = typeof SharpModule;

let loading: Promise<Sharp> | undefined;

export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
