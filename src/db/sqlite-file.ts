// Where the embedded database lives in the data folder: one rule for every connection that opens it.
import path from 'node:path';

export const sqliteFile = (dataDir: string): string => path.join(dataDir, 'annostore.sqlite');
