// The signed-in user's own account (/account): change the password, see and end sessions, and make
// or revoke API keys for programs.
import { useEffect, useState } from 'preact/hooks';
import { type Account, ApiError, type Session, type SessionItem, type TeamKey, changePassword, createOwnKey, getAccount, listOwnKeys, listSessions, revokeOwnKey, revokeSession } from '../api.ts';
import { Header } from '../components/header.tsx';
import type { Location } from '../router.ts';

const message = (failure: unknown) => (failure instanceof ApiError ? failure.message : (failure as Error).message);

export function AccountPage(props: { session: Session; onSignOut: () => void; location: Location }) {
  const [account, setAccount] = useState<Account | null>(null);
  const [sessions, setSessions] = useState<SessionItem[]>([]);
  const [keys, setKeys] = useState<TeamKey[]>([]);
  const [newKey, setNewKey] = useState('');
  const [error, setError] = useState('');
  const [saved, setSaved] = useState('');

  const load = async () => {
    const [a, s, k] = await Promise.all([getAccount(), listSessions(), listOwnKeys()]);
    setAccount(a);
    setSessions(s);
    setKeys(k);
  };
  useEffect(() => void load().catch((failure: unknown) => setError(message(failure))), []);

  const act = async (work: () => Promise<unknown>) => {
    setError('');
    setSaved('');
    try {
      await work();
      await load();
    } catch (failure) {
      setError(message(failure));
    }
  };

  const submitPassword = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value;
    void act(async () => {
      await changePassword(field('new-password')!, account?.user.hasPassword ? field('current-password') : undefined);
      form.reset();
      setSaved('Password changed. Your other sessions have ended.');
    });
  };

  const isAdmin = props.session.user.role !== 'member';
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: 'Your account' }]} />
      <main class="accounts">
        <h1>Your account</h1>
        {account && (
          <p>
            <strong>{account.user.login}</strong>, {account.user.role} of team {account.team.name}
          </p>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {saved && (
          <p class="notice" role="status">
            {saved}
          </p>
        )}
        <form class="password" onSubmit={submitPassword}>
          <h2>Password</h2>
          <input type="text" name="username" autocomplete="username" value={account?.user.login ?? ''} hidden readOnly />
          {account?.user.hasPassword && (
            <>
              <label for="current-password">Current password</label>
              <input id="current-password" name="current-password" type="password" autocomplete="current-password" required />
            </>
          )}
          <label for="new-password">New password</label>
          <input id="new-password" name="new-password" type="password" autocomplete="new-password" minLength={10} required />
          <button type="submit">Change password</button>
        </form>

        <section>
          <h2>Sessions</h2>
          <table class="users">
            <caption class="visually-hidden">Your sessions</caption>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">How</th>
                <th scope="col">From</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.id}>
                  <td>{new Date(s.createdAt).toLocaleString()}</td>
                  <td>{s.method === 'key' ? `key ${s.keyPrefix}…` : s.method}</td>
                  <td title={s.userAgent ?? ''}>{s.address ?? '?'}</td>
                  <td>
                    {s.current ? (
                      'this browser'
                    ) : (
                      <button type="button" class="quiet" onClick={() => void act(() => revokeSession(s.id))}>
                        End session
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>

        <section>
          <h2>API keys for programs</h2>
          <div class="key-actions">
            <button type="button" class="quiet" onClick={() => void act(async () => setNewKey((await createOwnKey('read')).key))}>
              New read key
            </button>
            <button type="button" class="quiet" onClick={() => void act(async () => setNewKey((await createOwnKey('write')).key))}>
              New write key
            </button>
            {isAdmin && (
              <button type="button" class="quiet" onClick={() => void act(async () => setNewKey((await createOwnKey('admin')).key))}>
                New admin key
              </button>
            )}
          </div>
          {newKey && (
            <p class="notice link-shown">
              <label for="new-key">New key (shown this once)</label>
              <input id="new-key" readOnly value={newKey} />
            </p>
          )}
          <table class="users">
            <caption class="visually-hidden">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Scope</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.scope}</td>
                  <td>{k.revokedAt ? 'revoked' : 'active'}</td>
                  <td>
                    {!k.revokedAt && (
                      <button type="button" class="quiet" onClick={() => void act(() => revokeOwnKey(k.id))}>
                        Revoke {k.prefix}…
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </main>
    </>
  );
}
