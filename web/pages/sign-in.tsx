// Sign in with a login and a password, or (for those who have only a key) with an API key. Either is
// sent once to POST /v2/session, which answers with an HttpOnly cookie; nothing is kept in the page.
// When the server offers single sign-on, a link to it comes first: the browser goes to the provider
// and comes back signed in, with the same cookie.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Session, type SingleSignOn, getSingleSignOn, signIn, signInWithPassword } from '../api.ts';

function refusal(failure: unknown, what: string): string {
  if (failure instanceof ApiError && failure.status === 401) return what;
  if (failure instanceof ApiError && failure.status === 429) return failure.message;
  return `Could not sign in: ${(failure as Error).message}`;
}

export function SignInPage(props: { onSignedIn: (session: Session) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState<SingleSignOn | null>(null);

  useEffect(() => {
    getSingleSignOn().then(setSso, () => setSso(null));
  }, []);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
    // A key, when one was pasted; else the login and password.
    const key = field('key').value.trim();
    const login = field('login').value.trim();
    const password = field('password').value;
    if (!key && (!login || !password)) {
      setError('Give your login and password (or an API key).');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const session = key ? await signIn(key) : await signInWithPassword(login, password);
      form.reset();
      props.onSignedIn(session);
    } catch (failure) {
      setError(refusal(failure, key ? 'That key is unknown or revoked.' : 'Wrong login or password, or the account is disabled.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form onSubmit={submit} aria-describedby="sign-in-help" noValidate>
        <h1>Sign in to Annostore</h1>
        {sso && (
          <>
            <a class="single-sign-on" href={sso.startUrl}>
              Sign in with {sso.label}
            </a>
            <p class="or">Or:</p>
          </>
        )}
        <p id="sign-in-help">Sign in with your login and password. New here? Open the invitation link your admin sent you.</p>
        <label for="login">Login</label>
        <input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" spellcheck={false} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="or" id="key-help">
          Or paste an API key of your team. The browser keeps only a session cookie; the key itself is not stored.
        </p>
        <label for="key">API key</label>
        <input id="key" name="key" type="password" autocomplete="off" spellcheck={false} aria-describedby="key-help" />
      </form>
    </main>
  );
}
