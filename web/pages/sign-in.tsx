// Sign in with an API key: it is sent once to POST /v2/session, which answers with an HttpOnly
// cookie; the key is not kept anywhere in the page.
import { useState } from 'preact/hooks';
import { ApiError, type Session, signIn } from '../api.ts';

export function SignInPage(props: { onSignedIn: (session: Session) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem('key') as HTMLInputElement;
    setBusy(true);
    setError('');
    try {
      const session = await signIn(input.value.trim());
      input.value = '';
      props.onSignedIn(session);
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? 'That key is unknown or revoked.' : `Could not sign in: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form onSubmit={submit} aria-describedby="sign-in-help">
        <h1>Sign in to Annostore</h1>
        <p id="sign-in-help">
          Paste an API key of your team. The browser keeps only a session cookie; the key itself is not stored.
        </p>
        <label for="key">API key</label>
        <input id="key" name="key" type="password" autocomplete="off" spellcheck={false} required />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
