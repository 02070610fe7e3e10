// The floor of the upload benchmark: a bare Fastify server (no logger, no hooks, no database) with
// @fastify/multipart that streams every file part of POST /upload to a file of --dir while hashing it
// (SHA-256), and answers [{id, hash}] per file part. It does not check, store or fsync anything.
//
//   node --import tsx bench/import-floor.ts --dir <folder> [--port <port>, else $PORT]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';

const { values } = parseArgs({ options: { port: { type: 'string' }, dir: { type: 'string' } } });
const dir = values.dir!;
fs.mkdirSync(dir, { recursive: true });

const app = Fastify({ logger: false });
await app.register(multipart, { limits: { fileSize: 50 * 1024 * 1024, files: 100, fields: 101, parts: 201 } });

app.get('/healthz', async () => ({ ok: true }));

let counter = 0;
app.post('/upload', async (request) => {
  const answers: { id: string; hash: string }[] = [];
  for await (const part of request.parts()) {
    if (part.type !== 'file') continue;
    counter += 1;
    const hash = createHash('sha256');
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(part.file, hashing, fs.createWriteStream(path.join(dir, String(counter))));
    answers.push({ id: part.fieldname, hash: hash.digest('base64') });
  }
  return answers;
});

await app.listen({ host: '127.0.0.1', port: Number(values.port ?? process.env.PORT ?? 0) });

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
