// The `annostore` command as a user runs it: keys, the catalogue, and a server that honours them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { dialects, tempDir } from '../helpers/dialects.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/annostore.js');

function envOf(config: Config): Record<string, string> {
  return {
    ...process.env,
    DATA_DIR: config.dataDir,
    LOG_LEVEL: 'warn',
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl, DATABASE_SCHEMA: config.databaseSchema! } : {}),
  } as Record<string, string>;
}

for (const dialect of dialects) {
  describe(`annostore command on ${dialect.name}`, { skip: dialect.skip }, () => {
    let config: Config;
    let server: ServerProcess | undefined;
    const cli = async (...args: string[]) => (await run(process.execPath, [BIN, ...args], { env: envOf(config) })).stdout;
    before(() => {
      config = dialect.freshConfig();
    });
    after(async () => {
      await server?.kill();
      await dialect.cleanup(config);
    });

    test('keys, architectures and models registered on the command line are what the API serves', { timeout: 120_000 }, async () => {
      const migrate = await cli('migrate');
      assert.match(migrate, /applied|up to date/);
      const key = (await cli('keys', 'create', '--team', 'vision', '--user', 'vera')).trim().split('\n').pop()!;
      assert.match(key, /^ak_[A-Za-z0-9_-]{32}$/);
      const readOnly = (await cli('keys', 'create', '--team', 'vision', '--user', 'rob', '--read-only')).trim().split('\n').pop()!;
      const listing = await cli('keys', 'list');
      assert.ok(listing.includes(key.slice(0, 12)), 'keys are listed by prefix');
      assert.ok(!listing.includes(key), 'never the key itself');
      assert.match(listing, new RegExp(`${readOnly.slice(0, 12)}\tvision\trob\tread\t`));
      assert.match(listing, new RegExp(`${key.slice(0, 12)}\tvision\tvera\twrite\t`));

      const archId = Number((await cli('architectures', 'add', '--title', 'UNet', '--description', 'segmentation', '--category-id', '2', '--train-image', 'reg/unet:train')).trim());
      assert.ok(archId > 0);
      const modelId = Number((await cli('models', 'add', '--team', 'vision', '--title', 'roads-v1', '--architecture-id', String(archId), '--bucket', 'models', '--object-name', 'roads/v1.pt')).trim());
      assert.ok(modelId > 0);
      await cli('models', 'add', '--team', 'elsewhere', '--title', 'hidden', '--architecture-id', String(archId), '--bucket', 'b', '--object-name', 'o');
      await assert.rejects(cli('models', 'add', '--team', 'vision', '--title', 'x', '--architecture-id', '999', '--bucket', 'b', '--object-name', 'o'));

      server = await startServerProcess(envOf(config));
      const get = (url: string, k = key) => fetch(`${server!.url}/v1${url}`, { headers: { 'x-api-key': k } });
      const models = (await (await get('/models')).json()) as { id: number; title: string; architectureId: number; path: unknown }[];
      assert.deepEqual(models.map((m) => [m.id, m.title, m.architectureId, m.path]), [[modelId, 'roads-v1', archId, { bucket: 'models', objectName: 'roads/v1.pt' }]]);
      const archs = (await (await get(`/architectures?id=${archId}`)).json()) as { title: string; categoryId: number; trainImage: string }[];
      assert.deepEqual(archs.map((a) => [a.title, a.categoryId, a.trainImage]), [['UNet', 2, 'reg/unet:train']]);
      assert.equal((await get('/projects', readOnly)).status, 200);
      assert.equal((await fetch(`${server.url}/v1/projects/1`, { method: 'DELETE', headers: { 'x-api-key': readOnly } })).status, 403);

      const revoked = await cli('keys', 'revoke', key.slice(0, 12));
      assert.match(revoked, /revoked 1 key/);
      // A revoked key stops working within a few seconds at most.
      const deadline = Date.now() + 5000;
      let status = (await get('/projects')).status;
      while (status !== 401 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await get('/projects')).status;
      }
      assert.equal(status, 401);
    });

    test('the server prints a key once when none is configured, and ANNOSTORE_API_KEY is registered idempotently', { timeout: 60_000 }, async () => {
      await server?.kill();
      const fresh = dialect.freshConfig();
      try {
        const first = await startServerProcess(envOf(fresh));
        await new Promise((resolve) => setTimeout(resolve, 200));
        const printed = /ak_[A-Za-z0-9_-]{32}/.exec(first.output())?.[0];
        assert.ok(printed, 'a generated key is printed');
        assert.equal((await fetch(`${first.url}/v1/projects`, { headers: { 'x-api-key': printed } })).status, 200);
        await first.kill();
        const second = await startServerProcess({ ...envOf(fresh), ANNOSTORE_API_KEY: 'ak_configured-key-for-admin-000000' });
        assert.ok(!/ak_[A-Za-z0-9_-]{32}/.test(second.output()), 'no key is generated when one exists');
        await second.kill();
        const third = await startServerProcess({ ...envOf(fresh), ANNOSTORE_API_KEY: 'ak_configured-key-for-admin-000000' });
        const res = await fetch(`${third.url}/v1/projects`, { headers: { 'x-api-key': 'ak_configured-key-for-admin-000000' } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('deprecation')?.startsWith('@'), true);
        await third.kill();
      } finally {
        await dialect.cleanup(fresh);
      }
    });
  });
}

describe('annostore serve with an ANNOSTORE_API_KEY no request could use', () => {
  test('stops before it starts, with exit code 2 and the rule on stderr; the shortest usable key serves', { timeout: 120_000 }, async () => {
    const dataDir = tempDir('api-key');
    try {
      for (const key of ['k1', ' padded-key ']) {
        const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ANNOSTORE_API_KEY: key };
        // A server that does start never exits by itself: the time limit ends it, and the test fails.
        const failure = await run(process.execPath, [BIN, 'serve'], { env, timeout: 20_000 }).then(
          () => assert.fail('the command succeeded'),
          (error: { code: number | null; signal: string | null; stderr: string }) => error,
        );
        assert.equal(failure.code, 2, `${JSON.stringify(key)}: ${failure.signal ?? ''} ${failure.stderr}`);
        assert.match(failure.stderr, /^annostore: ANNOSTORE_API_KEY must be 8 to 512 printable ASCII characters, without a space at either end/m);
        assert.ok(!failure.stderr.includes(key.trim()), 'the key is not printed');
        assert.deepEqual(fs.readdirSync(dataDir), [], 'nothing is created');
      }
      const server = await startServerProcess({ DATA_DIR: dataDir, ANNOSTORE_API_KEY: 'abcdefgh' });
      try {
        assert.equal((await fetch(`${server.url}/v1/projects`, { headers: { 'x-api-key': 'abcdefgh' } })).status, 200);
      } finally {
        await server.kill();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
