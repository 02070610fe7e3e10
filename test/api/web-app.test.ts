// The web interface as the server hands it out: the same page at each of its addresses, under a
// policy that lets it load only this server's scripts, and its bundled script and stylesheet; the
// API's own addresses stay the API's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { type TestApp, startTestApp } from '../helpers/test-app.ts';

for (const dialect of dialects) {
  describe(`the web interface's files on ${dialect.name}`, { skip: dialect.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(async () => t?.close());

    test('each page address answers the same HTML, with no key, under a strict content policy', async () => {
      const pages = ['/', '/sign-in', '/projects/3/images?class=2', '/projects/3/tags', '/projects/3/settings', '/datasets/4/images', '/images/41?project=3', '/tasks'];
      const bodies = new Set<string>();
      for (const url of pages) {
        const res = await t.request({ method: 'GET', url, key: null });
        assert.equal(res.statusCode, 200, url);
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
        assert.doesNotMatch(String(res.headers['content-security-policy']), /script-src[^;]*unsafe/);
        assert.equal(res.headers['x-frame-options'], 'DENY');
        bodies.add(res.body);
      }
      assert.equal(bodies.size, 1);
      assert.match([...bodies][0]!, /<script type="module" src="\/assets\/app.js"><\/script>/);
    });

    test('the script and stylesheet are served with an ETag; an unknown asset is a 404', async () => {
      const js = await t.request({ method: 'GET', url: '/assets/app.js', key: null });
      assert.equal(js.statusCode, 200);
      assert.match(String(js.headers['content-type']), /^text\/javascript/);
      assert.ok(js.body.length > 1000 && js.body.length < 500_000, `${js.body.length} bytes`);
      const again = await t.request({ method: 'GET', url: '/assets/app.js', key: null, headers: { 'if-none-match': String(js.headers.etag) } });
      assert.equal(again.statusCode, 304);
      const css = await t.request({ method: 'GET', url: '/assets/app.css', key: null });
      assert.equal(css.statusCode, 200);
      assert.match(String(css.headers['content-type']), /^text\/css/);
      assert.equal((await t.request({ method: 'GET', url: '/assets/..%2Fpackage.json', key: null })).statusCode, 404);
      assert.equal((await t.request({ method: 'GET', url: '/assets/server.js', key: null })).statusCode, 404);
    });

    test('the API keeps its addresses: /v2 still asks for a key, an unknown path is still a 404', async () => {
      assert.equal((await t.request({ method: 'GET', url: '/v2/projects', key: null })).statusCode, 401);
      assert.equal((await t.request({ method: 'GET', url: '/no/such/page', key: null })).statusCode, 404);
    });
  });
}
