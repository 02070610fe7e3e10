// Where the peer and outside fixtures live: real dataset files written by other projects (see the
// README in each folder), kept in the repository so the suite runs from any checkout.
import path from 'node:path';

export const PEER = path.resolve(import.meta.dirname, '../fixtures/peer');
export const OUTSIDE = path.resolve(import.meta.dirname, '../fixtures/outside');
