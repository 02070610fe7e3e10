// The thread of blob-reader.ts: reads a batch of small files with blocking calls, one after another,
// and answers them in one buffer. A file it cannot read as recorded (missing, or not of its recorded
// size) it leaves to the caller, which reads it the ordinary way and so meets the same error or bytes.
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';

export interface BlobReadRequest {
  id: number;
  files: string[];
  sizes: number[];
}

export interface BlobReadReply {
  id: number;
  /** The files' bytes one after another, those left to the caller taking no room. */
  data: ArrayBuffer;
  /** Each file's length in `data`, or -1 for one left to the caller. */
  lengths: number[];
}

function readBatch({ id, files, sizes }: BlobReadRequest): BlobReadReply {
  let total = 1;
  for (const size of sizes) total += size;
  // Not from Buffer's pool: the whole ArrayBuffer is handed over to the caller.
  const data = Buffer.allocUnsafeSlow(total);
  const lengths: number[] = [];
  let offset = 0;
  for (let i = 0; i < files.length; i += 1) {
    const size = sizes[i]!;
    let length = -1;
    try {
      const fd = fs.openSync(files[i]!, 'r');
      try {
        // One byte more than recorded: a longer file shows itself. The extra byte lands where the next
        // file goes (or in the spare byte at the end) and is overwritten.
        if (fs.readSync(fd, data, offset, size + 1, 0) === size) length = size;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      // Left to the caller, whose own read reports it.
    }
    lengths.push(length);
    if (length > 0) offset += length;
  }
  return { id, data: data.buffer, lengths };
}

parentPort!.on('message', (request: BlobReadRequest) => {
  const reply = readBatch(request);
  parentPort!.postMessage(reply, [reply.data]);
});
