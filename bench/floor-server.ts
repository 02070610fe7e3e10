// The floor of a benchmark: a bare Fastify server (no logger, no hooks, no database) that does the
// least a server can do for the same request.
//   --body <url>=<file>  answer GET <url> (path and query, exactly) with the bytes of <file> as JSON;
//                        <file> is what follows the last `=`
//   --hello              answer GET /hello with {"hello":"world"}, Fastify's hello world
//   --static <dir>       serve the files of <dir> under /static/<name>, as a bare static file server
//                        does: a stat and a read stream each, an ETag, one byte range
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    body: { type: 'string', multiple: true, default: [] },
    hello: { type: 'boolean', default: false },
    static: { type: 'string' },
  },
});

const app = Fastify({ logger: false });

if (values.hello) {
  app.get('/hello', async () => ({ hello: 'world' }));
}

if (values.static) {
  const root = path.resolve(values.static);
  app.get<{ Params: { name: string } }>('/static/:name', async (request, reply) => {
    const file = path.join(root, path.basename(request.params.name));
    const stat = await fsp.stat(file).catch(() => null);
    if (!stat) return reply.code(404).send();
    const etag = `"${stat.size.toString(16)}-${stat.mtimeMs.toString(16)}"`;
    void reply.header('ETag', etag).header('Accept-Ranges', 'bytes').header('Cache-Control', 'private, max-age=31536000, immutable');
    void reply.type(file.endsWith('.webp') ? 'image/webp' : 'image/jpeg');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    const match = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    if (match) {
      const start = Number(match[1]);
      const end = Math.min(Number(match[2]), stat.size - 1);
      void reply.code(206).header('Content-Range', `bytes ${start}-${end}/${stat.size}`).header('Content-Length', end - start + 1);
      return reply.send(fs.createReadStream(file, { start, end }));
    }
    void reply.header('Content-Length', stat.size);
    return reply.send(fs.createReadStream(file));
  });
}

const bodies = new Map<string, Buffer>();
for (const spec of values.body) {
  const at = spec.lastIndexOf('=');
  bodies.set(spec.slice(0, at), fs.readFileSync(spec.slice(at + 1)));
}
if (bodies.size > 0) {
  app.get('/*', (request, reply) => {
    const body = bodies.get(request.url);
    if (!body) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(body);
  });
}

await app.listen({ host: '127.0.0.1', port: Number(values.port ?? 0) });

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
