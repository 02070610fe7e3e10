// The one error of planning and reading an import folder, for `annostore import` and the web interface.

/** The folder is not something we can import, or a file of it cannot be read. */
export class FolderError extends Error {
  override readonly name = 'FolderError';
}
