// The web interface as the server hands it out: the same page at each of its addresses, under a
// policy that lets it load only this server's scripts, and its bundled script and stylesheet; the
// API's own addresses stay the API's; a browser asking for an address that is no page gets the
// interface answered 404 (its "Not found" page), and the icon is served.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
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
      const pages = ['/', '/sign-in', '/projects/3', '/projects/3/images?class=2', '/projects/3/tags', '/projects/3/settings', '/datasets/4/images', '/images/41?project=3', '/tasks'];
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

    test('the segment tool\'s WebAssembly runtime is served whole from its file, with an ETag', async () => {
      const file = fileURLToPath(new URL('./ort-wasm-simd-threaded.wasm', import.meta.resolve('onnxruntime-web/wasm')));
      const res = await t.request({ method: 'GET', url: '/assets/ort-wasm-simd-threaded.wasm', key: null });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/wasm');
      assert.equal(Number(res.headers['content-length']), fs.statSync(file).size);
      assert.ok(res.rawPayload.equals(fs.readFileSync(file)), 'the bytes of the file');
      assert.match(String(res.headers.etag), /^"[\w-]{27}"$/);
      const again = await t.request({ method: 'GET', url: '/assets/ort-wasm-simd-threaded.wasm', key: null, headers: { 'if-none-match': String(res.headers.etag) } });
      assert.equal(again.statusCode, 304);
      assert.equal(again.rawPayload.length, 0);
    });

    test('the API keeps its addresses: /v2 still asks for a key, an unknown path is still a 404', async () => {
      assert.equal((await t.request({ method: 'GET', url: '/v2/projects', key: null })).statusCode, 401);
      assert.equal((await t.request({ method: 'GET', url: '/no/such/page', key: null })).statusCode, 404);
    });

    test('a browser’s address that is no page gets the interface, answered 404; the API answers its own JSON even to a browser', async () => {
      const html = { accept: 'text/html,application/xhtml+xml' };
      for (const url of ['/projects/abc', '/projects/abc/images', '/images/1.5', '/datasets/0/images', '/nowhere/at/all', '/projects/3/images/extra']) {
        const res = await t.request({ method: 'GET', url, key: null, headers: html });
        assert.equal(res.statusCode, 404, url);
        assert.match(String(res.headers['content-type']), /^text\/html/, url);
        assert.match(String(res.headers['content-security-policy']), /default-src 'self'/, url);
        assert.equal(res.headers['cache-control'], 'no-store', url);
        assert.match(res.body, /<div id="app">/, url);
      }
      const json = await t.request({ method: 'GET', url: '/nowhere/at/all', key: null });
      assert.equal(json.statusCode, 404);
      assert.match(String(json.headers['content-type']), /json/, 'a client that does not ask for HTML gets JSON');
      for (const url of ['/v2/nowhere', '/v1/nowhere', '/assets/nothing.js']) {
        const res = await t.request({ method: 'GET', url, headers: html });
        assert.equal(res.statusCode, 404, url);
        assert.match(String(res.headers['content-type']), /json/, url);
      }
      const post = await t.request({ method: 'POST', url: '/nowhere', key: null, headers: html });
      assert.match(String(post.headers['content-type']), /json/, 'only a GET is a page');
    });

    test('every page of the interface, opened by its address, is the interface answered 200', async () => {
      const html = { accept: 'text/html,application/xhtml+xml' };
      // The pages are those the interface's router tells apart (web/main.tsx), so a page added there
      // and not to the server's list fails here.
      const router = fs.readFileSync(new URL('../../web/main.tsx', import.meta.url), 'utf8');
      const pages = [...router.matchAll(/match\('([^']+)'|location\.path === '([^']*)'/g)].map((m) => (m[1] ?? m[2])!.replace(/:\w+/g, '3')).filter((url) => url !== '');
      assert.ok(pages.includes('/my-work') && pages.includes('/projects/3/jobs') && pages.length >= 19, pages.join(' '));
      for (const url of pages) {
        const res = await t.request({ method: 'GET', url, key: null, headers: html });
        assert.equal(res.statusCode, 200, url);
        assert.match(res.body, /<div id="app">/, url);
      }
    });

    test('the icon is an SVG of the app’s own, linked from the page', async () => {
      const icon = await t.request({ method: 'GET', url: '/assets/favicon.svg', key: null });
      assert.equal(icon.statusCode, 200);
      assert.equal(icon.headers['content-type'], 'image/svg+xml');
      assert.match(icon.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      const page = await t.request({ method: 'GET', url: '/', key: null });
      assert.match(page.body, /<link rel="icon" href="\/assets\/favicon.svg" type="image\/svg\+xml" \/>/);
    });
  });
}
