// /v2/webhooks through the real app on both databases: admin-only, the secret shown once, another
// team's webhook missing, URLs that would reach internal addresses refused (and allowed when
// configured), events written with their change (and not for one that rolled back), and deliveries
// listed with the receiver's answers.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Static } from 'typebox';
import { AnnostoreClient, ApiError } from '../../src/client/index.ts';
import { loadConfig } from '../../src/config.ts';
import type { WebhookSettings } from '../../src/config.ts';
import type { WebhookView } from '../../src/http/schemas/v2-webhooks.ts';
import * as tasks from '../../src/repositories/tasks.repository.ts';
import * as deliveryRows from '../../src/repositories/webhooks.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { createKey } from '../../src/services/keys.service.ts';
import * as transitions from '../../src/services/task-transitions.ts';
import { recordEvent } from '../../src/services/webhook-events.ts';
import { MAX_WEBHOOKS_PER_TEAM } from '../../src/services/webhooks.service.ts';
import { type DeliveryWorker, retryDelay, startDeliveryWorker } from '../../src/webhooks/delivery-worker.ts';
import { postOnce } from '../../src/webhooks/deliver.ts';
import { ResolveTimedOut, TargetRefused, classifyAddress, dnsLookup, resolveTarget } from '../../src/webhooks/target-policy.ts';
import { dialects } from '../helpers/dialects.ts';
import { newDataset, newImage, newProject, newTag, polygon, tagImage } from '../helpers/factories.ts';
import { type TestApp, json, startTestApp } from '../helpers/test-app.ts';
import { waitFor } from '../helpers/wait.ts';
import { type WebhookReceiver, startReceiver } from '../helpers/webhook-receiver.ts';

/** A webhook as the routes answer it; `secret` only in the answer that made it. */
type Hook = Static<typeof WebhookView> & { secret?: string };

interface Delivery {
  id: number;
  eventType: string;
  messageId: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  response: { status: number | null; body: string | null; error: string | null; durationMs: number | null } | null;
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}

interface Problem {
  code: string;
  errors?: { pointer: string; detail: string }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const settings = (overrides: Partial<WebhookSettings>): WebhookSettings => ({ ...loadConfig({}).webhooks, ...overrides });

test('addresses are told apart: public, internal, and never', () => {
  for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111']) assert.equal(classifyAddress(address), 'public', address);
  for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '100.64.0.1', '169.254.10.10', '::1', 'fd12::1', 'fe80::1', 'fec0::1', 'feff::1']) {
    assert.equal(classifyAddress(address), 'private', address);
  }
  for (const address of ['0.0.0.0', '169.254.169.254', '224.0.0.1', '255.255.255.255', '::', '::ffff:127.0.0.1', '::ffff:8.8.8.8', '::127.0.0.1', '::10.0.0.1', '::8.8.8.8', '::ffff:0:127.0.0.1', '::ffff:0:8.8.8.8', 'ff02::1', 'fd00:ec2::254', 'not-an-ip']) {
    assert.equal(classifyAddress(address), 'never', address);
  }
});

test('every resolved address is checked, host patterns are matched, and an attempt connects to the address checked', async () => {
  const open = { allowedHosts: [], allowPrivate: false };
  const answers = (...addresses: string[]) => ({ deadlineMs: 1000, lookup: async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) });
  assert.equal((await resolveTarget('https://hooks.example.com/x', open, answers('93.184.215.14'))).address, '93.184.215.14');
  // A name that resolves to an internal address, even among public ones (DNS rebinding), is refused.
  await assert.rejects(resolveTarget('https://hooks.example.com/x', open, answers('10.0.0.7')), TargetRefused);
  await assert.rejects(resolveTarget('https://hooks.example.com/x', open, answers('93.184.215.14', '127.0.0.1')), TargetRefused);
  await assert.rejects(resolveTarget('https://hooks.example.com/x', { ...open, allowPrivate: true }, answers('169.254.169.254')), TargetRefused);
  assert.equal((await resolveTarget('https://hooks.example.com/x', { ...open, allowPrivate: true }, answers('10.0.0.7'))).address, '10.0.0.7');
  const listed = { allowedHosts: ['hooks.example.com', '*.example.org'], allowPrivate: false };
  for (const url of ['https://hooks.example.com/', 'https://a.example.org/', 'https://b.a.example.org/']) await resolveTarget(url, listed, answers('93.184.215.14'));
  for (const url of ['https://example.org/', 'https://other.example.com/', 'https://hooks.example.com.evil.net/', 'https://evilexample.org/']) {
    await assert.rejects(resolveTarget(url, listed, answers('93.184.215.14')), TargetRefused, url);
  }

  // The attempt goes to the checked address: the URL's name is never looked up again.
  const receiver = await startReceiver();
  try {
    const url = new URL(receiver.url.replace('127.0.0.1', 'never-resolved.invalid'));
    const result = await postOnce({ url, address: '127.0.0.1', family: 4 }, { 'webhook-id': 'msg_pinned' }, JSON.stringify({ type: 't', data: {} }), { timeoutMs: 2000 });
    assert.equal(result.status, 200, JSON.stringify(result));
    assert.equal(receiver.received[0]?.messageId, 'msg_pinned');
    receiver.mode = 'hold';
    const slow = await postOnce({ url, address: '127.0.0.1', family: 4 }, {}, '{"type":"t","data":{}}', { timeoutMs: 200 });
    assert.deepEqual([slow.status, slow.error], [null, 'no answer within 200 ms']);
  } finally {
    await receiver.close();
  }
});

test('a host name is resolved within a deadline: a silent DNS server refuses it in time; localhost and literal addresses need none', async () => {
  const open = { allowedHosts: [], allowPrivate: true };
  let cancelled = false;
  const silent = (_host: string, signal: AbortSignal) =>
    new Promise<never>(() => {
      signal.addEventListener('abort', () => (cancelled = true));
    });
  const started = Date.now();
  await assert.rejects(resolveTarget('https://hooks.example.com/x', open, { deadlineMs: 200, lookup: silent }), (error: unknown) => {
    assert.ok(error instanceof ResolveTimedOut);
    assert.match(error.message, /could not be resolved within 200 ms/);
    return true;
  });
  const took = Date.now() - started;
  assert.ok(took >= 190 && took < 1000, `refused after ${took} ms`);
  assert.ok(cancelled, 'the lookup is told to give up');
  // The DNS servers are never asked for these.
  const never = { deadlineMs: 50, lookup: silent };
  assert.equal((await resolveTarget('http://127.0.0.1:9/x', open, never)).address, '127.0.0.1');
  assert.equal((await resolveTarget('http://[::1]:9/x', open, never)).family, 6);
  const local = await resolveTarget('http://localhost:9/x', open, { deadlineMs: 50 });
  assert.deepEqual([local.address, local.family], ['127.0.0.1', 4]);
  assert.deepEqual(await dnsLookup(50)('localhost', new AbortController().signal), [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
  await assert.rejects(resolveTarget('http://localhost:9/x', { allowedHosts: [], allowPrivate: false }, { deadlineMs: 50 }), TargetRefused);
});

test('retries back off exponentially, with jitter in the upper half, up to an hour', () => {
  assert.equal(retryDelay(1, 1000, () => 0), 500);
  assert.equal(retryDelay(1, 1000, () => 1), 1000);
  assert.equal(retryDelay(4, 1000, () => 1), 8000);
  assert.equal(retryDelay(40, 1000, () => 1), 3_600_000);
  assert.equal(retryDelay(40, 1000, () => 0), 1_800_000);
});

for (const dialect of dialects) {
  describe(`API v2 webhooks on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let betaAdmin: string;
    before(async () => {
      t = await startTestApp(dialect);
      betaAdmin = await createKey(t.ctx.db.kysely, { team: 'beta', user: 'bob-admin', scope: 'admin' });
    });
    after(async () => t?.close());

    const create = (payload: unknown, key = t.adminKey) => t.request({ method: 'POST', url: '/v2/webhooks', key, payload: payload as Record<string, unknown> });
    const problem = (res: { statusCode: number; body: string }, status: number) => {
      assert.equal(res.statusCode, status, res.body);
      return JSON.parse(res.body) as Problem;
    };

    test('an admin makes, reads and removes a webhook; the secret is shown once', async () => {
      const res = await create({ url: 'http://93.184.215.14/hooks', events: ['task.finished', 'project.deleted'], description: 'ci' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const made = json<Hook>(res);
      assert.match(made.secret!, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual({ url: made.url, events: made.events, description: made.description }, { url: 'http://93.184.215.14/hooks', events: ['task.finished', 'project.deleted'], description: 'ci' });

      const one = await t.request({ method: 'GET', url: `/v2/webhooks/${made.id}`, key: t.adminKey });
      assert.equal(one.statusCode, 200);
      assert.ok(one.headers.etag);
      assert.equal(json<Hook>(one).secret, undefined);
      assert.ok(!one.body.includes(made.secret!));
      const list = json<Page<Hook>>(await t.request({ method: 'GET', url: '/v2/webhooks?count=true', key: t.adminKey }));
      assert.deepEqual(list.items.map((h) => h.id), [made.id]);
      assert.equal(list.total, 1);
      assert.ok(!JSON.stringify(list).includes(made.secret!));

      assert.equal(problem(await t.request({ method: 'DELETE', url: `/v2/webhooks/${made.id}`, key: t.adminKey, headers: { 'if-match': '"stale"' } }), 412).code, 'PRECONDITION_FAILED');
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/webhooks/${made.id}`, key: t.adminKey, headers: { 'if-match': String(one.headers.etag) } })).statusCode, 204);
      assert.equal((await t.request({ method: 'GET', url: `/v2/webhooks/${made.id}`, key: t.adminKey })).statusCode, 404);
    });

    test('only admins manage webhooks, and another team’s webhook is missing', async () => {
      const made = json<Hook>(await create({ url: 'https://93.184.215.14/a', events: ['task.error'] }));
      for (const key of [t.key, t.readOnlyKey]) {
        assert.equal(problem(await create({ url: 'https://93.184.215.14/b', events: ['task.error'] }, key), 403).code, 'FORBIDDEN');
        for (const url of ['/v2/webhooks', `/v2/webhooks/${made.id}`, `/v2/webhooks/${made.id}/deliveries`]) {
          assert.equal((await t.request({ method: 'GET', url, key })).statusCode, 403, url);
        }
        assert.equal((await t.request({ method: 'DELETE', url: `/v2/webhooks/${made.id}`, key })).statusCode, 403);
      }
      for (const url of [`/v2/webhooks/${made.id}`, `/v2/webhooks/${made.id}/deliveries`]) {
        assert.equal(problem(await t.request({ method: 'GET', url, key: betaAdmin }), 404).code, 'NOT_FOUND', url);
      }
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/webhooks/${made.id}`, key: betaAdmin })).statusCode, 404);
      assert.deepEqual(json<Page<Hook>>(await t.request({ method: 'GET', url: '/v2/webhooks', key: betaAdmin })).items, []);
      assert.equal((await t.request({ method: 'GET', url: `/v2/webhooks/${made.id}`, key: t.adminKey })).statusCode, 200);
      await t.request({ method: 'DELETE', url: `/v2/webhooks/${made.id}`, key: t.adminKey });
    });

    test('bad URLs, unknown events and internal addresses are refused at /url', async () => {
      const badUrls = [
        'not a url',
        'ftp://93.184.215.14/x',
        'file:///etc/passwd',
        'http://user:secret@93.184.215.14/',
        `http://93.184.215.14/${'x'.repeat(2100)}`,
        'http://127.0.0.1:8080/hooks',
        'http://localhost/hooks',
        'http://10.0.0.5/',
        'http://169.254.169.254/latest/meta-data',
        'http://0.0.0.0/',
        'http://[::1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://100.64.1.1/',
        'http://no-such-host.invalid/',
      ];
      for (const url of badUrls) {
        const body = problem(await create({ url, events: ['task.error'] }), 400);
        assert.equal(body.code, 'VALIDATION', url);
        assert.equal(body.errors?.[0]?.pointer, '/url', `${url}: ${JSON.stringify(body)}`);
      }
      assert.equal(problem(await create({ url: 'http://93.184.215.14/', events: ['task.exploded'] }), 400).code, 'VALIDATION');
      assert.equal(problem(await create({ url: 'http://93.184.215.14/', events: [] }), 400).code, 'VALIDATION');
      assert.equal(problem(await create({ url: 'http://93.184.215.14/', events: ['task.error'], extra: 1 }), 400).code, 'VALIDATION');
      assert.deepEqual(json<Page<Hook>>(await t.request({ method: 'GET', url: '/v2/webhooks', key: t.adminKey })).items, []);
    });

    test('the typed client manages webhooks', async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = t.app.server.address() as AddressInfo;
      const client = new AnnostoreClient({ url: `http://127.0.0.1:${port}`, key: t.adminKey, retries: 0 });
      const made = await client.v2.webhooks.create({ url: 'https://93.184.215.14/client', events: ['dataset.deleted'] });
      assert.match(made.secret, /^whsec_/);
      const read = await client.v2.webhooks.get(made.id);
      assert.deepEqual(read.value.events, ['dataset.deleted']);
      assert.deepEqual((await client.v2.webhooks.list()).items.map((h) => h.id), [made.id]);
      assert.deepEqual((await client.v2.webhooks.deliveries(made.id)).items, []);
      const ping = await client.v2.webhooks.test(made.id);
      assert.equal(ping.eventType, 'webhook.test');
      assert.deepEqual((await client.v2.webhooks.deliveries(made.id)).items.map((d) => d.messageId), [ping.messageId]);
      await assert.rejects(client.v2.webhooks.create({ url: 'http://127.0.0.1/', events: ['task.error'] }), (error: unknown) => error instanceof ApiError && error.status === 400);
      await client.v2.webhooks.remove(made.id, { ifMatch: read.etag });
      assert.deepEqual((await client.v2.webhooks.list()).items, []);
    });

    test(`a team holds at most ${MAX_WEBHOOKS_PER_TEAM} webhooks`, async () => {
      const ids: number[] = [];
      for (let i = 0; i < MAX_WEBHOOKS_PER_TEAM; i += 1) ids.push(json<Hook>(await create({ url: `http://93.184.215.14/${i}`, events: ['task.error'] })).id);
      assert.equal(problem(await create({ url: 'http://93.184.215.14/over', events: ['task.error'] }), 409).code, 'CONFLICT');
      // Another team is not held by alpha's count.
      assert.equal((await create({ url: 'http://93.184.215.14/beta', events: ['task.error'] }, betaAdmin)).statusCode, 201);
      const page = json<Page<Hook>>(await t.request({ method: 'GET', url: '/v2/webhooks?limit=15', key: t.adminKey }));
      assert.equal(page.items.length, 15);
      const rest = json<Page<Hook>>(await t.request({ method: 'GET', url: `/v2/webhooks?limit=15&cursor=${page.nextCursor}`, key: t.adminKey }));
      assert.deepEqual([...page.items, ...rest.items].map((h) => h.id), ids);
      assert.equal(rest.nextCursor, null);
      for (const id of ids) await t.request({ method: 'DELETE', url: `/v2/webhooks/${id}`, key: t.adminKey });
    });
  });

  describe(`webhook events and deliveries on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    let receiver: WebhookReceiver;
    let worker: DeliveryWorker | undefined;
    let alpha: number;
    let hook: Hook;
    before(async () => {
      receiver = await startReceiver();
      // An attempt may take 10 s: a stop that waited for it would show, however slow the machine.
      t = await startTestApp(dialect, { webhooks: settings({ allowPrivate: true, retryBaseMs: 50, pollMs: 20, timeoutMs: 10_000, leaseMs: 15_000 }) });
      alpha = await ensureTeam(t.ctx.db.kysely, 'alpha');
      const res = await t.request({ method: 'POST', url: '/v2/webhooks', key: t.adminKey, payload: { url: receiver.url, events: ['project.deleted', 'dataset.deleted', 'task.started', 'task.finished', 'task.stopped', 'annotation.updated'] } });
      assert.equal(res.statusCode, 201, res.body);
      hook = json<Hook>(res);
      receiver.secrets.push(hook.secret!);
    });
    after(async () => {
      await worker?.stop();
      await t?.close();
      await receiver?.close();
    });

    const pending = async () => Number((await t.ctx.db.kysely.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const deliveries = async () => json<Page<Delivery>>(await t.request({ method: 'GET', url: `/v2/webhooks/${hook.id}/deliveries`, key: t.adminKey })).items;

    test('an event recorded in a transaction that rolls back is never written; outside one it is refused', async () => {
      const before = await pending();
      await assert.rejects(
        t.ctx.db.kysely.transaction().execute(async (trx) => {
          await recordEvent(trx, alpha, 'project.deleted', { id: 999 });
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      assert.equal(await pending(), before);
      await assert.rejects(recordEvent(t.ctx.db.kysely, alpha, 'project.deleted', { id: 999 }), /transaction/);
      // A delete refused by its precondition writes no event either.
      const project = json<{ id: number }>(await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 'kept' } }));
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/projects/${project.id}`, headers: { 'if-match': '"stale"' } })).statusCode, 412);
      assert.equal(await pending(), before);
    });

    test('changes write one delivery per subscribed webhook in their transaction; the worker sends and lists them', async () => {
      // A second webhook of another team wants the same events and must see none of alpha's.
      const beta = await createKey(t.ctx.db.kysely, { team: 'beta', user: 'bo', scope: 'admin' });
      const betaHook = json<Hook>(await t.request({ method: 'POST', url: '/v2/webhooks', key: beta, payload: { url: receiver.url, events: ['project.deleted', 'dataset.deleted'] } }));

      const project = json<{ id: number }>(await t.request({ method: 'POST', url: '/v2/projects', payload: { title: 'gone soon' } }));
      const dataset = json<{ id: number }>(await t.request({ method: 'POST', url: `/v2/projects/${project.id}/datasets`, payload: { title: 'ds' } }));
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/datasets/${dataset.id}` })).statusCode, 200);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/projects/${project.id}` })).statusCode, 204);
      const taskId = await tasks.createTask(t.ctx.db.kysely, { teamId: alpha, userId: null, type: 'probe', size: 3, meta: {}, input: {} });
      const claimed = await transitions.claimTask(t.ctx.db.kysely, { owner: 'test-owner', leaseMs: 60_000 });
      assert.equal(claimed?.id, taskId);
      assert.ok(await transitions.finishTask(t.ctx.db.kysely, { id: taskId, owner: 'test-owner', status: 'finished', meta: { done: true } }));
      const queued = await tasks.createTask(t.ctx.db.kysely, { teamId: alpha, userId: null, type: 'probe', size: 0, meta: {}, input: {} });
      assert.equal((await t.request({ method: 'POST', url: `/v2/tasks/${queued}/stop` })).statusCode, 202);

      const listed = await deliveries();
      assert.deepEqual(listed.map((d) => d.eventType), ['task.stopped', 'task.finished', 'task.started', 'project.deleted', 'dataset.deleted']);
      assert.ok(listed.every((d) => d.status === 'pending' && d.attempts === 0 && d.response === null && d.messageId.startsWith('msg_')));
      assert.deepEqual(json<Page<Delivery>>(await t.request({ method: 'GET', url: `/v2/webhooks/${betaHook.id}/deliveries`, key: beta })).items, []);

      // The receiver is down at first: the attempts fail, are recorded, and are retried.
      receiver.mode = 'fail';
      worker = startDeliveryWorker(t.ctx, t.app.log, { owner: 'test-worker' });
      // One delivery at a time per webhook, the oldest first; while it fails, the others wait for its retry.
      await waitFor('failed attempts', async () => (await deliveries()).at(-1)!.attempts >= 2);
      const failed = (await deliveries()).at(-1)!;
      assert.ok((await deliveries()).slice(0, -1).every((d) => d.attempts === 0 && d.status === 'pending'), 'the others are not tried while the oldest fails');
      assert.equal(failed.status, 'pending');
      assert.deepEqual({ status: failed.response!.status, body: failed.response!.body }, { status: 503, body: 'down for maintenance' });
      assert.ok(failed.nextAttemptAt);
      receiver.mode = 'ok';
      await waitFor('every delivery delivered', async () => (await deliveries()).every((d) => d.status === 'delivered'), 10_000);

      const done = await deliveries();
      for (const d of done) {
        assert.equal(d.response!.status, 200);
        assert.equal(d.response!.body, `thanks for ${d.messageId}`);
        assert.ok(d.attempts >= 1);
        assert.equal(d.nextAttemptAt, null);
      }
      // Every request was signed, and each webhook-id stayed the same on every attempt.
      assert.ok(receiver.received.every((r) => r.verified));
      const ids = new Set(done.map((d) => d.messageId));
      assert.ok(receiver.received.every((r) => ids.has(r.messageId)));
      assert.equal(new Set(receiver.accepted().map((r) => r.messageId)).size, 5);
      const byType = new Map(receiver.accepted().map((r) => [r.type, r.data]));
      assert.deepEqual(byType.get('project.deleted'), { id: project.id, title: 'gone soon' });
      assert.deepEqual(byType.get('dataset.deleted'), { id: dataset.id, projectId: project.id, title: 'ds' });
      const finished = byType.get('task.finished') as { id: number; status: string; size: number; meta: unknown; finishedAt: string | null };
      assert.deepEqual([finished.id, finished.status, finished.size, finished.meta], [taskId, 'finished', 3, { done: true }]);
      assert.ok(finished.finishedAt);
      assert.equal((byType.get('task.stopped') as { id: number }).id, queued);

      // Paging, newest first.
      const first = json<Page<Delivery>>(await t.request({ method: 'GET', url: `/v2/webhooks/${hook.id}/deliveries?limit=2&count=true`, key: t.adminKey }));
      assert.equal(first.total, 5);
      const second = json<Page<Delivery>>(await t.request({ method: 'GET', url: `/v2/webhooks/${hook.id}/deliveries?limit=10&cursor=${first.nextCursor}`, key: t.adminKey }));
      assert.deepEqual([...first.items, ...second.items].map((d) => d.id), done.map((d) => d.id));
    });

    test('a ping goes to its webhook only, signed like any event; only the team’s admins may send one', async () => {
      assert.equal((await t.request({ method: 'POST', url: `/v2/webhooks/${hook.id}/test` })).statusCode, 403);
      const beta = await createKey(t.ctx.db.kysely, { team: 'beta', user: 'pinger', scope: 'admin' });
      assert.equal((await t.request({ method: 'POST', url: `/v2/webhooks/${hook.id}/test`, key: beta })).statusCode, 404);
      const res = await t.request({ method: 'POST', url: `/v2/webhooks/${hook.id}/test`, key: t.adminKey });
      assert.equal(res.statusCode, 202, res.body);
      const ping = json<Delivery>(res);
      assert.deepEqual([ping.eventType, ping.status], ['webhook.test', 'pending']);
      const arrived = await waitFor('the ping', () => receiver.accepted().find((r) => r.messageId === ping.messageId), 10_000);
      assert.ok(arrived.verified);
      assert.deepEqual([arrived.type, arrived.data], ['webhook.test', { webhookId: hook.id }]);
    });

    test('a worker that stops mid-attempt hands the delivery back uncounted, and another sends it', async () => {
      receiver.mode = 'hold';
      const held = receiver.nextHeld();
      const ping = json<Delivery>(await t.request({ method: 'POST', url: `/v2/webhooks/${hook.id}/test`, key: t.adminKey }));
      assert.equal((await held).messageId, ping.messageId);
      const stopping = Date.now();
      await worker!.stop();
      assert.ok(Date.now() - stopping < 3000, 'the stop does not wait for the timeout');
      const handedBack = (await deliveries()).find((d) => d.id === ping.id)!;
      assert.deepEqual([handedBack.status, handedBack.attempts, handedBack.response?.error], ['pending', 0, 'the worker stopped during the attempt']);
      receiver.mode = 'ok';
      worker = startDeliveryWorker(t.ctx, t.app.log, { owner: 'second-worker' });
      await waitFor('the handed-back delivery', async () => (await deliveries()).find((d) => d.id === ping.id && d.status === 'delivered'), 10_000);
      assert.ok(receiver.accepted().some((r) => r.messageId === ping.messageId));
    });

    test('a delivery that never gets a 2xx within the retry window is marked failed', async () => {
      await worker?.stop();
      worker = undefined;
      const short = await startTestApp(dialect, { webhooks: settings({ allowPrivate: true, retryBaseMs: 50, pollMs: 20, retryWindowMs: 2000 }) });
      try {
        const res = await short.request({ method: 'POST', url: '/v2/webhooks', key: short.adminKey, payload: { url: receiver.url, events: ['project.deleted'] } });
        const made = json<Hook>(res);
        receiver.secrets.push(made.secret!);
        const project = json<{ id: number }>(await short.request({ method: 'POST', url: '/v2/projects', payload: { title: 'x' } }));
        await short.request({ method: 'DELETE', url: `/v2/projects/${project.id}` });
        receiver.mode = 'fail';
        const shortWorker = startDeliveryWorker(short.ctx, short.app.log);
        try {
          const list = async () => json<Page<Delivery>>(await short.request({ method: 'GET', url: `/v2/webhooks/${made.id}/deliveries`, key: short.adminKey })).items;
          const ended = await waitFor('the delivery to fail', async () => (await list()).find((d) => d.status === 'failed'), 10_000);
          assert.ok(ended.attempts >= 2, JSON.stringify(ended));
          assert.equal(ended.nextAttemptAt, null);
          assert.equal(ended.response?.status, 503);
        } finally {
          await shortWorker.stop();
        }
      } finally {
        receiver.mode = 'ok';
        await short.close();
      }
    });

    test('a webhook whose receiver never answers holds one delivery slot: another team’s event goes out at once, and its own wait for the retry', async () => {
      await worker?.stop();
      worker = undefined;
      // Long enough that the healthy delivery, however slow the machine, goes out while the dead one's
      // attempt still waits: it went out beside it, not after it.
      const timeoutMs = 3000;
      const hanging = await startReceiver();
      hanging.mode = 'hold';
      const slow = await startTestApp(dialect, { webhooks: settings({ allowPrivate: true, retryBaseMs: 10_000, pollMs: 20, timeoutMs, leaseMs: 8000 }) });
      let slowWorker: DeliveryWorker | undefined;
      try {
        const dead = json<Hook>(await slow.request({ method: 'POST', url: '/v2/webhooks', key: slow.adminKey, payload: { url: hanging.url, events: ['project.deleted'] } }));
        const otherTeam = await createKey(slow.ctx.db.kysely, { team: 'beta', user: 'healthy', scope: 'admin' });
        const healthy = json<Hook>(await slow.request({ method: 'POST', url: '/v2/webhooks', key: otherTeam, payload: { url: receiver.url, events: ['project.deleted'] } }));
        receiver.secrets.push(healthy.secret!);
        const [alphaId, betaId] = [await ensureTeam(slow.ctx.db.kysely, 'alpha'), await ensureTeam(slow.ctx.db.kysely, 'beta')];
        // Twenty events of the dead webhook's team are due before the other team's one.
        await slow.ctx.db.kysely.transaction().execute(async (trx) => {
          for (let i = 0; i < 20; i += 1) await recordEvent(trx, alphaId, 'project.deleted', { id: 1000 + i, title: `p${i}` });
        });
        await slow.ctx.db.kysely.transaction().execute((trx) => recordEvent(trx, betaId, 'project.deleted', { id: 5000, title: 'healthy' }));
        const list = async (id: number) => slow.ctx.db.kysely.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('webhook_id', '=', id).execute();

        const started = Date.now();
        slowWorker = startDeliveryWorker(slow.ctx, slow.app.log);
        await waitFor('the healthy webhook’s delivery', async () => (await list(healthy.id))[0]!.status === 'delivered', 2 * timeoutMs);
        assert.ok(Date.now() - started < timeoutMs, `delivered after ${Date.now() - started} ms`);
        // The first attempt to the dead webhook times out; its other deliveries then wait for the retry.
        await waitFor('the dead webhook’s first attempt to end', async () => (await list(dead.id)).some((d) => d.attempts === 1) && (await slow.ctx.db.kysely.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', dead.id).where('lease_owner', 'is not', null).execute()).length === 0, 3 * timeoutMs);
        await sleep(500);
        const attempts = (await list(dead.id)).reduce((n, d) => n + d.attempts, 0);
        assert.equal(attempts, 1, 'one attempt to the dead webhook, not one per event');
        assert.equal(hanging.received.length, 1, 'never more than one request to it at once');
      } finally {
        await slowWorker?.stop();
        await slow.close();
        await hanging.close();
      }
    });

    test('two workers claiming at once never take two deliveries of one webhook', async () => {
      const db = t.ctx.db.kysely;
      const long = '2000-01-01T00:00:00.000Z';
      for (let round = 0; round < 10; round += 1) {
        await deliveryRows.insertDeliveries(
          db,
          [0, 1].map((i) => ({ webhookId: hook.id, eventType: 'webhook.test', messageId: `msg_race_${round}_${i}`, payload: '{}', createdAt: long })),
        );
        // Only these are due at that moment: every other delivery was made later.
        const claims = await Promise.all(['one', 'two'].map((owner) => deliveryRows.claimDelivery(db, { owner, leaseMs: 60_000, now: '2000-01-01T00:00:01.000Z' })));
        assert.equal(claims.filter((c) => c !== undefined).length, 1, `round ${round}: ${JSON.stringify(claims.map((c) => c?.id))}`);
        await db.deleteFrom('webhook_deliveries').where('message_id', 'like', 'msg_race_%').execute();
      }
    });

    test('an event that came while a delivery waits for its retry is not sent before it', async () => {
      const db = t.ctx.db.kysely;
      const res = await t.request({ method: 'POST', url: '/v2/webhooks', key: t.adminKey, payload: { url: receiver.url, events: ['project.deleted'] } });
      assert.equal(res.statusCode, 201, res.body);
      const ordered = json<Hook>(res);
      // The first event's attempt failed at 0:01 and is retried at 0:05; the second came at 0:02.
      await deliveryRows.insertDeliveries(db, [
        { webhookId: ordered.id, eventType: 'webhook.test', messageId: 'msg_order_first', payload: '{}', createdAt: '2000-01-01T00:00:00.000Z' },
        { webhookId: ordered.id, eventType: 'webhook.test', messageId: 'msg_order_second', payload: '{}', createdAt: '2000-01-01T00:00:02.000Z' },
      ]);
      await db.updateTable('webhook_deliveries').set({ attempts: 1, next_attempt_at: '2000-01-01T00:00:05.000Z' }).where('message_id', '=', 'msg_order_first').execute();
      const claim = (now: string) => deliveryRows.claimDelivery(db, { owner: 'order', leaseMs: 60_000, now });
      assert.equal(await claim('2000-01-01T00:00:03.000Z'), undefined, 'the second waits for the first');
      assert.equal((await claim('2000-01-01T00:00:06.000Z'))?.messageId, 'msg_order_first', 'the retried one first');
      await db.deleteFrom('webhooks').where('id', '=', ordered.id).execute();
    });

    test('changing an image’s description changes its annotation: one annotation.updated with the new ETag', async () => {
      const projectId = await newProject(t.ctx, { title: 'described' });
      const image = await newImage(t.ctx, await newDataset(t.ctx, projectId));
      const updates = () =>
        t.ctx.db.kysely.selectFrom('webhook_deliveries').select('payload').where('webhook_id', '=', hook.id).where('event_type', '=', 'annotation.updated').execute();
      const before = (await updates()).length;
      const patch = (description: string) => t.request({ method: 'PATCH', url: `/v2/images/${image.id}`, payload: { description } });
      assert.equal((await patch('seen at dawn')).statusCode, 200);
      const rows = (await updates()).slice(before);
      assert.equal(rows.length, 1);
      const etag = (await t.request({ method: 'GET', url: `/v2/images/${image.id}/annotation` })).headers.etag;
      assert.deepEqual((JSON.parse(rows[0]!.payload) as { data: unknown }).data, { imageId: image.id, projectId, etag });
      // The same description again leaves the annotation as it was: no event.
      assert.equal((await patch('seen at dawn')).statusCode, 200);
      assert.equal((await updates()).length, before + 1);
    });

    test('v1 attaching or detaching an image tag, or setting the description, records annotation.updated; a change that changes nothing records none', async () => {
      const projectId = await newProject(t.ctx, { title: 'tagged through v1' });
      const image = await newImage(t.ctx, await newDataset(t.ctx, projectId));
      await newTag(t.ctx, projectId, { scope: 'images', title: 'foggy' });
      const updates = async () =>
        (await t.ctx.db.kysely.selectFrom('webhook_deliveries').select('payload').where('webhook_id', '=', hook.id).where('event_type', '=', 'annotation.updated').orderBy('id').execute()).map(
          (r) => (JSON.parse(r.payload) as { data: unknown }).data,
        );
      const etagOf = async () => (await t.request({ method: 'GET', url: `/v2/images/${image.id}/annotation` })).headers.etag;
      const eventsOf = async (method: 'POST' | 'DELETE' | 'PUT', url: string, payload: unknown) => {
        const before = (await updates()).length;
        const res = await t.request({ method, url: `/v1/${url}?imageId=${image.id}`, payload: payload as Record<string, unknown> });
        assert.equal(res.statusCode, 200, res.body);
        return (await updates()).slice(before);
      };
      assert.deepEqual(await eventsOf('POST', 'images/tags', { title: 'foggy' }), [{ imageId: image.id, projectId, etag: await etagOf() }]);
      assert.deepEqual(await eventsOf('POST', 'images/tags', { title: 'foggy' }), [], 'attached already');
      assert.deepEqual(await eventsOf('DELETE', 'images/tags', [{ title: 'foggy' }]), [{ imageId: image.id, projectId, etag: await etagOf() }]);
      assert.deepEqual(await eventsOf('DELETE', 'images/tags', [{ title: 'foggy' }]), [], 'not attached');
      assert.deepEqual(await eventsOf('PUT', 'images/description', { value: 'misty morning' }), [{ imageId: image.id, projectId, etag: await etagOf() }]);
      assert.deepEqual(await eventsOf('PUT', 'images/description', { value: 'misty morning' }), [], 'the same description');
    });

    test('a v2 PUT or PATCH of an annotation records annotation.updated only when its ETag changed', async () => {
      const projectId = await newProject(t.ctx, { title: 'written back', classes: [{ title: 'car', shape: 'rectangle' }] });
      const image = await newImage(t.ctx, await newDataset(t.ctx, projectId));
      const url = `/v2/images/${image.id}/annotation`;
      const updates = async () =>
        (await t.ctx.db.kysely.selectFrom('webhook_deliveries').select('payload').where('webhook_id', '=', hook.id).where('event_type', '=', 'annotation.updated').orderBy('id').execute()).map(
          (r) => (JSON.parse(r.payload) as { data: unknown }).data,
        );
      const eventsOf = async (method: 'PUT' | 'PATCH', payload: Record<string, unknown>) => {
        const before = (await updates()).length;
        const res = await t.request({ method, url, payload });
        assert.equal(res.statusCode, 200, res.body);
        return { events: (await updates()).slice(before), etag: res.headers.etag };
      };
      const car = { classTitle: 'car', points: { exterior: [[1, 1], [9, 9]], interior: [] } };
      const put = await eventsOf('PUT', { description: '', tags: [], objects: [car] });
      assert.deepEqual(put.events, [{ imageId: image.id, projectId, etag: put.etag }]);
      // What a receiver that writes back would send: the annotation as it read it.
      const read = JSON.parse((await t.request({ method: 'GET', url })).body) as Record<string, unknown>;
      const same = await eventsOf('PUT', read);
      assert.equal(same.etag, put.etag);
      assert.deepEqual(same.events, [], 'sent back as read');
      assert.deepEqual((await eventsOf('PATCH', {})).events, [], 'an empty patch');
    });

    test('renaming or deleting a class or a tag records annotation.updated for each image whose annotation it changed', async () => {
      const projectId = await newProject(t.ctx, { title: 'classy', classes: [{ title: 'car', shape: 'polygon' }, { title: 'tree', shape: 'polygon' }] });
      const datasetId = await newDataset(t.ctx, projectId);
      const square: [number, number][] = [[1, 1], [5, 1], [5, 5]];
      const cars = [await newImage(t.ctx, datasetId, { objects: [polygon('car', square)] }), await newImage(t.ctx, datasetId, { objects: [polygon('car', square), polygon('tree', square)] })];
      const trees = await newImage(t.ctx, datasetId, { objects: [polygon('tree', square)] });
      const tagged = await newImage(t.ctx, datasetId);
      const tagId = await newTag(t.ctx, projectId, { scope: 'images', title: 'sunny' });
      await tagImage(t.ctx, tagged.id, tagId);
      const seen = async () =>
        (await t.ctx.db.kysely.selectFrom('webhook_deliveries').select(['id', 'payload']).where('webhook_id', '=', hook.id).where('event_type', '=', 'annotation.updated').orderBy('id').execute()).map(
          (r) => (JSON.parse(r.payload) as { data: { imageId: number; etag: string } }).data,
        );
      const eventsOf = async (change: () => Promise<{ statusCode: number; body: string }>) => {
        const before = (await seen()).length;
        const res = await change();
        assert.ok(res.statusCode < 300, res.body);
        return (await seen()).slice(before);
      };
      const etagOf = async (imageId: number) => (await t.request({ method: 'GET', url: `/v2/images/${imageId}/annotation` })).headers.etag;
      const classId = async (title: string) => (await t.ctx.db.kysely.selectFrom('classes').select('id').where('project_id', '=', projectId).where('title', '=', title).executeTakeFirstOrThrow()).id;

      const renamed = await eventsOf(async () => t.request({ method: 'PATCH', url: `/v2/classes/${await classId('car')}`, payload: { title: 'vehicle' } }));
      assert.deepEqual(renamed.map((e) => e.imageId).sort((a, b) => a - b), cars.map((c) => c.id));
      for (const e of renamed) assert.equal(e.etag, await etagOf(e.imageId));
      const deleted = await eventsOf(async () => t.request({ method: 'DELETE', url: `/v2/classes/${await classId('tree')}?cascade=true` }));
      assert.deepEqual(deleted.map((e) => e.imageId).sort((a, b) => a - b), [cars[1]!.id, trees.id]);
      const retitled = await eventsOf(() => t.request({ method: 'PATCH', url: `/v2/tags/${tagId}`, payload: { title: 'bright' } }));
      assert.deepEqual(retitled, [{ imageId: tagged.id, projectId, etag: await etagOf(tagged.id) }]);
      const untagged = await eventsOf(() => t.request({ method: 'DELETE', url: `/v2/tags/${tagId}` }));
      assert.deepEqual(untagged, [{ imageId: tagged.id, projectId, etag: await etagOf(tagged.id) }]);
    });

    test('removing a webhook removes its deliveries', async () => {
      assert.ok((await deliveries()).length > 0);
      assert.equal((await t.request({ method: 'DELETE', url: `/v2/webhooks/${hook.id}`, key: t.adminKey })).statusCode, 204);
      const left = await t.ctx.db.kysely.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).execute();
      assert.deepEqual(left, []);
    });
  });
}
