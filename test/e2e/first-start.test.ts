// The first start of a new server: it prints an invitation link for the owner of team default and an
// API key; the link sets the owner's password and signs in, and the key works.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { tempDir } from '../helpers/dialects.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

let server: ServerProcess | undefined;
const dataDir = tempDir('first-start');
after(async () => {
  await server?.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a first start prints the owner’s invitation link and a key; the link sets a password and signs in', { timeout: 60_000 }, async () => {
  server = await startServerProcess({ DATA_DIR: dataDir, PASSWORD_SCRYPT_LOG_N: '14' });
  const deadline = Date.now() + 10_000;
  while (!/ak_[\w-]{32}/.test(server.output()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const output = server.output();
  const link = new RegExp(`${server.url}/set-password#([\\w-]{43})`).exec(output);
  assert.ok(link, output);
  const key = /(ak_[\w-]{32})/.exec(output)![1]!;
  assert.equal((await fetch(`${server.url}/v2/projects`, { headers: { authorization: `Bearer ${key}` } })).status, 200);

  const lookup = await fetch(`${server.url}/v2/password-links/lookup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: link[1] }) });
  assert.deepEqual({ ...((await lookup.json()) as object), expiresAt: undefined }, { purpose: 'invitation', login: 'admin', team: 'default', expiresAt: undefined });
  const used = await fetch(`${server.url}/v2/password-links/use`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: link[1], password: 'the owners password' }) });
  assert.equal(used.status, 201);
  assert.equal(((await used.json()) as { user: { role: string } }).user.role, 'owner');
  const signIn = await fetch(`${server.url}/v2/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'admin', password: 'the owners password' }) });
  assert.equal(signIn.status, 201);
});
