// The floor of a benchmark: a bare Fastify server (no logger, no hooks, no database) that does the
// least a server can do for the same request.
//   --body <url>=<file>  answer GET <url> (path and query, exactly) with the bytes of <file> as JSON;
//                        <file> is what follows the last `=`
//   --hello              answer GET /hello with {"hello":"world"}, Fastify's hello world
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    body: { type: 'string', multiple: true, default: [] },
    hello: { type: 'boolean', default: false },
  },
});

const app = Fastify({ logger: false });

if (values.hello) {
  app.get('/hello', async () => ({ hello: 'world' }));
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
