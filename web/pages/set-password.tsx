// The page a one-time link opens (/set-password#<token>): it names the account, takes a new password,
// and signs in. The token stays in the fragment, which the browser never sends in a request.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type LinkInfo, type Session, describeLink, usePasswordLink } from '../api.ts';

export function SetPasswordPage(props: { onSignedIn: (session: Session) => void }) {
  const [token] = useState(() => window.location.hash.slice(1));
  const [info, setInfo] = useState<LinkInfo | null | undefined>(undefined);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    describeLink(token).then(setInfo, (failure: unknown) => {
      setInfo(null);
      setError(failure instanceof ApiError ? failure.message : `Could not read the link: ${(failure as Error).message}`);
    });
  }, [token]);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const password = (form.elements.namedItem('new-password') as HTMLInputElement).value;
    const again = (form.elements.namedItem('repeat-password') as HTMLInputElement).value;
    if (password !== again) {
      setError('The two passwords differ.');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const session = await usePasswordLink(token, password);
      // The link is used up: it leaves the address bar and the history entry.
      window.history.replaceState(null, '', '/set-password');
      props.onSignedIn(session);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : `Could not set the password: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  if (info === undefined) return <p class="loading" role="status">Loading…</p>;
  return (
    <main class="sign-in">
      {info === null ? (
        <section class="notice">
          <h1>This link does not work</h1>
          <p role="alert" class="error">
            {error}
          </p>
          <a href="/sign-in">Go to sign in</a>
        </section>
      ) : (
        <form onSubmit={submit} aria-describedby="set-password-help">
          <h1>{info.purpose === 'invitation' ? 'Welcome to Annostore' : 'Choose a new password'}</h1>
          <p id="set-password-help">
            {info.purpose === 'invitation' ? 'Choose a password for ' : 'A new password for '}
            <strong>{info.login}</strong> of team <strong>{info.team}</strong>. At least 10 characters. This link works once.
          </p>
          <input type="text" name="username" autocomplete="username" value={info.login} hidden readOnly />
          <label for="new-password">New password</label>
          <input id="new-password" name="new-password" type="password" autocomplete="new-password" minLength={10} required />
          <label for="repeat-password">Repeat it</label>
          <input id="repeat-password" name="repeat-password" type="password" autocomplete="new-password" minLength={10} required />
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Set password and sign in'}
          </button>
        </form>
      )}
    </main>
  );
}
