// A real OpenID Connect provider (the `oidc-provider` package) on loopback, and a small cookie-keeping
// HTTP client that goes through its sign-in as a browser would: redirects followed by hand, its login
// and consent forms (the package's development interactions: any password passes, the login typed
// is the account's subject) filled in and sent.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
}

export interface OpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's accounts by subject; change them at will (read at each sign-in). */
  accounts: Map<string, AccountClaims>;
  /** Registers the client with this redirect URI: the provider answers requests from then on. */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

export async function startOpenIdProvider(): Promise<OpenIdProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, AccountClaims>();
  const clientId = 'annostore';
  const clientSecret = 'a-client-secret-for-the-tests-only';
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    register(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'] }],
        async findAccount(_ctx, id) {
          return { accountId: id, claims: async () => ({ sub: id, ...accounts.get(id) }) };
        },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
        cookies: { keys: ['cookie-key-for-the-tests-only'] },
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
      });
      // Its errors are the tests' to see in answers, not on the console.
      provider.on('server_error', () => undefined);
      server.on('request', provider.callback());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by origin, redirects followed by hand, forms sent: enough of a browser for a sign-in. */
export class CookieBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  cookies(origin: string): Map<string, string> {
    let cookies = this.jar.get(origin);
    if (!cookies) this.jar.set(origin, (cookies = new Map()));
    return cookies;
  }

  /** One request, its Set-Cookie values kept; no redirect followed. */
  async fetch(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Response> {
    const { origin } = new URL(url);
    const cookie = [...this.cookies(origin)].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...init.headers },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0\b/i.test(header)) this.cookies(origin).delete(name);
      else this.cookies(origin).set(name, value);
    }
    return res;
  }

  /**
   * Goes to `url` and through the provider's pages (redirects, the login form as `login`, the consent
   * form) until a redirect points at `stopAt`: answers that URL, not followed.
   */
  async signInAt(url: string, login: string, stopAt: string): Promise<string> {
    let next = url;
    let form: Record<string, string> | undefined;
    for (let step = 0; step < 20; step++) {
      const res = await this.fetch(next, form ? { method: 'POST', form } : {});
      form = undefined;
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        next = new URL(location, next).href;
        if (next.startsWith(stopAt)) return next;
        continue;
      }
      const page = await res.text();
      assert.equal(res.status, 200, `${next}: ${page.slice(0, 500)}`);
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      assert.ok(action, `a form on ${next}: ${page.slice(0, 500)}`);
      form = Object.fromEntries([...page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
      if (/name="login"/.test(page)) Object.assign(form, { login, password: 'any password' });
      next = new URL(action.replace(/&amp;/g, '&'), next).href;
    }
    assert.fail(`no redirect to ${stopAt} after 20 steps`);
  }
}
