// Settings read from the environment: the defaults, and a clear error for a value out of range.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('HEAP_GROWTH_PERCENT: 20 by default, 0 leaves V8 its own, anything else is refused by name', () => {
  assert.equal(loadConfig({}).heapGrowthPercent, 20);
  assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent, 0);
  assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '50' }).heapGrowthPercent, 50);
  for (const bad of ['-1', '2.5', 'lots', '1001']) {
    assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: bad }), (error: unknown) => error instanceof ConfigError && /HEAP_GROWTH_PERCENT/.test(error.message));
  }
});

test('ANNOSTORE_API_KEY: a key no request could use is refused with the rule, never echoed', () => {
  assert.equal(loadConfig({}).bootstrapApiKey, undefined);
  assert.equal(loadConfig({ ANNOSTORE_API_KEY: '' }).bootstrapApiKey, undefined);
  for (const usable of ['abcdefgh', 'ak_configured-key-for-admin-000000', 'two words~!', 'x'.repeat(512)]) {
    assert.equal(loadConfig({ ANNOSTORE_API_KEY: usable }).bootstrapApiKey, usable);
  }
  const unusable = ['k1', 'abcdefg', 'x'.repeat(513), ' leading-space', 'trailing-space ', 'tab\tinside', 'line\nbreak-key', 'schlüssel-geheim'];
  for (const key of unusable) {
    assert.throws(
      () => loadConfig({ ANNOSTORE_API_KEY: key }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.startsWith('ANNOSTORE_API_KEY must be 8 to 512 printable ASCII characters, without a space at either end') &&
        !error.message.includes(key.trim()),
      JSON.stringify(key),
    );
  }
});

test('SESSION_TTL_HOURS: a week by default, whole hours up to a year; TRUST_PROXY: true, false, hops or proxy addresses', () => {
  assert.equal(loadConfig({}).sessionTtlMs, 7 * 24 * 3600_000);
  assert.equal(loadConfig({ SESSION_TTL_HOURS: '12' }).sessionTtlMs, 12 * 3600_000);
  for (const bad of ['0', '1.5', 'forever', String(24 * 367)]) {
    assert.throws(() => loadConfig({ SESSION_TTL_HOURS: bad }), (error: unknown) => error instanceof ConfigError && /SESSION_TTL_HOURS/.test(error.message));
  }
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.4,::1,fd00::/8,loopback' }).trustProxy, ['10.0.0.0/8', '192.168.1.4', '::1', 'fd00::/8', 'loopback']);
  for (const bad of ['yes please', '11', '10.0.0.0/33', '::1/129', '10.0.0.1/8/2', 'proxy.example.com', '10.0.0.1,', '-1']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }), (error: unknown) => error instanceof ConfigError && /TRUST_PROXY/.test(error.message), bad);
  }
});

test('WEBHOOK_*: private addresses refused by default, host patterns checked, a lease longer than the timeout', () => {
  const defaults = loadConfig({}).webhooks;
  assert.deepEqual(defaults, { allowedHosts: [], allowPrivate: false, timeoutMs: 10_000, leaseMs: 60_000, retryBaseMs: 10_000, retryWindowMs: 86_400_000, pollMs: 1000 });
  assert.deepEqual(loadConfig({ WEBHOOK_ALLOWED_HOSTS: ' Hooks.Example.com, *.example.org ,[::1]' }).webhooks.allowedHosts, ['hooks.example.com', '*.example.org', '[::1]']);
  assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks.allowPrivate, true);
  for (const [name, value] of [
    ['WEBHOOK_ALLOWED_HOSTS', 'https://hooks.example.com/'],
    ['WEBHOOK_ALLOWED_HOSTS', 'a b'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['WEBHOOK_TIMEOUT_MS', 'soon'],
    ['WEBHOOK_RETRY_BASE_MS', '5'],
  ] as const) {
    assert.throws(() => loadConfig({ [name]: value }), (error: unknown) => error instanceof ConfigError && error.message.includes(name), `${name}=${value}`);
  }
  assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '5000' }), (error: unknown) => error instanceof ConfigError && /WEBHOOK_LEASE_MS/.test(error.message));
});

test('METRICS_TOKEN: off by default, a token a Bearer header can carry, never echoed; WORKER_METRICS_PORT; AUDIT_RETENTION_DAYS: 90 by default', () => {
  assert.equal(loadConfig({}).operations.metricsToken, undefined);
  assert.equal(loadConfig({ METRICS_TOKEN: '' }).operations.metricsToken, undefined);
  assert.equal(loadConfig({ METRICS_TOKEN: 'scrape-me-0123456789' }).operations.metricsToken, 'scrape-me-0123456789');
  for (const bad of ['short-token', 'with a space in the middle', 'x'.repeat(513), 'geheimnis-für-prometheus']) {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: bad }),
      (error: unknown) => error instanceof ConfigError && /METRICS_TOKEN/.test(error.message) && !error.message.includes(bad),
      JSON.stringify(bad),
    );
  }
  assert.equal(loadConfig({}).operations.workerMetricsPort, undefined);
  assert.equal(loadConfig({ WORKER_METRICS_PORT: '9464' }).operations.workerMetricsPort, 9464);
  assert.throws(() => loadConfig({ WORKER_METRICS_PORT: '70000' }), (error: unknown) => error instanceof ConfigError && /WORKER_METRICS_PORT/.test(error.message));
  assert.equal(loadConfig({}).operations.auditRetentionMs, 90 * 24 * 3600_000);
  assert.equal(loadConfig({ AUDIT_RETENTION_DAYS: '7' }).operations.auditRetentionMs, 7 * 24 * 3600_000);
  for (const bad of ['0', '1.5', 'forever', '3651']) {
    assert.throws(() => loadConfig({ AUDIT_RETENTION_DAYS: bad }), (error: unknown) => error instanceof ConfigError && /AUDIT_RETENTION_DAYS/.test(error.message));
  }
  assert.equal(loadConfig({}).operations.revisionsPerImage, 50);
  assert.equal(loadConfig({ REVISIONS_PER_IMAGE: '5' }).operations.revisionsPerImage, 5);
  assert.equal(loadConfig({}).operations.revisionRetentionMs, 365 * 24 * 3600_000);
  assert.equal(loadConfig({ REVISION_RETENTION_DAYS: '30' }).operations.revisionRetentionMs, 30 * 24 * 3600_000);
  assert.throws(() => loadConfig({ REVISIONS_PER_IMAGE: '0' }), (error: unknown) => error instanceof ConfigError && /REVISIONS_PER_IMAGE/.test(error.message));
});

test('connection timeouts and limit: defaults, values from the environment, and what is refused', () => {
  assert.deepEqual(loadConfig({}).connections, { headersTimeoutMs: 30_000, idleTimeoutMs: 60_000, keepAliveTimeoutMs: 72_000, maxConnections: 4096 });
  const set = loadConfig({ HEADERS_TIMEOUT_MS: '5000', IDLE_TIMEOUT_MS: '120000', KEEP_ALIVE_TIMEOUT_MS: '10000', MAX_CONNECTIONS: '100' }).connections;
  assert.deepEqual(set, { headersTimeoutMs: 5000, idleTimeoutMs: 120_000, keepAliveTimeoutMs: 10_000, maxConnections: 100 });
  for (const [name, bad] of [['HEADERS_TIMEOUT_MS', '0'], ['IDLE_TIMEOUT_MS', '1.5'], ['KEEP_ALIVE_TIMEOUT_MS', 'soon'], ['MAX_CONNECTIONS', '1'], ['MAX_CONNECTIONS', 'many']] as const) {
    assert.throws(() => loadConfig({ [name]: bad }), (error: unknown) => error instanceof ConfigError && error.message.includes(name), `${name}=${bad}`);
  }
});

test('OIDC_*: no single sign-on without an issuer; defaults; an issuer over plain HTTP only on loopback; what is refused', () => {
  assert.equal(loadConfig({}).accounts.singleSignOn, undefined);
  assert.equal(loadConfig({ OIDC_CLIENT_ID: 'annostore' }).accounts.singleSignOn, undefined);
  const issuer = { OIDC_ISSUER: 'https://id.example.com/realms/corp', OIDC_CLIENT_ID: 'annostore' };
  assert.deepEqual(loadConfig(issuer).accounts.singleSignOn, {
    issuer: 'https://id.example.com/realms/corp',
    clientId: 'annostore',
    clientSecret: undefined,
    redirectUrl: undefined,
    buttonLabel: 'single sign-on',
    team: 'default',
    linkByEmail: true,
    autoCreateDomains: [],
  });
  const set = loadConfig({
    ...issuer,
    OIDC_CLIENT_SECRET: 's3cret',
    OIDC_REDIRECT_URL: 'https://annostore.example.com/v2/session/oidc/callback',
    OIDC_BUTTON_LABEL: 'Corp ID',
    OIDC_TEAM: 'research',
    OIDC_LINK_BY_EMAIL: 'false',
    OIDC_AUTO_CREATE_DOMAINS: 'Corp.example, lab.corp.example',
  }).accounts.singleSignOn!;
  assert.deepEqual(
    [set.clientSecret, set.redirectUrl, set.buttonLabel, set.team, set.linkByEmail, set.autoCreateDomains],
    ['s3cret', 'https://annostore.example.com/v2/session/oidc/callback', 'Corp ID', 'research', false, ['corp.example', 'lab.corp.example']],
  );
  for (const local of ['http://127.0.0.1:9000', 'http://localhost:9000/realm', 'http://[::1]:9000']) assert.equal(loadConfig({ ...issuer, OIDC_ISSUER: local }).accounts.singleSignOn!.issuer, local);
  for (const [env, name] of [
    [{ ...issuer, OIDC_ISSUER: 'http://id.example.com' }, 'OIDC_ISSUER'],
    [{ ...issuer, OIDC_ISSUER: 'ftp://id.example.com' }, 'OIDC_ISSUER'],
    [{ ...issuer, OIDC_ISSUER: 'not a url' }, 'OIDC_ISSUER'],
    [{ OIDC_ISSUER: issuer.OIDC_ISSUER }, 'OIDC_CLIENT_ID'],
    [{ ...issuer, OIDC_BUTTON_LABEL: 'x'.repeat(61) }, 'OIDC_BUTTON_LABEL'],
    [{ ...issuer, OIDC_AUTO_CREATE_DOMAINS: 'corp' }, 'OIDC_AUTO_CREATE_DOMAINS'],
    [{ ...issuer, OIDC_LINK_BY_EMAIL: 'sometimes' }, 'OIDC_LINK_BY_EMAIL'],
    [{ ...issuer, OIDC_REDIRECT_URL: 'nowhere' }, 'OIDC_REDIRECT_URL'],
  ] as const) {
    assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && error.message.includes(name), JSON.stringify(env));
  }
});
