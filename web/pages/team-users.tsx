// The team's users for an owner or admin (/team/users): invite one (the one-time link is shown once,
// to copy and hand over), change a role, send a new password link, disable or enable.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type InvitedUser, type Session, type User, changeUser, inviteUser, listUsers, newPasswordLink } from '../api.ts';
import { Header } from '../components/header.tsx';
import type { Location } from '../router.ts';

const ROLES: User['role'][] = ['member', 'admin', 'owner'];

function stateOf(user: User): string {
  if (user.disabledAt) return 'disabled';
  return user.hasPassword || user.singleSignOn ? 'active' : 'invited';
}

export function TeamUsersPage(props: { session: Session; onSignOut: () => void; location: Location }) {
  const [users, setUsers] = useState<User[] | null>(null);
  const [error, setError] = useState('');
  const [link, setLink] = useState<InvitedUser | null>(null);
  const [busy, setBusy] = useState(false);
  const isAdmin = props.session.user.role !== 'member';

  const load = () => listUsers().then(setUsers, (failure: Error) => setError(failure.message));
  useEffect(() => void load(), []);

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError('');
    try {
      await work();
      await load();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : (failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const invite = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const login = (form.elements.namedItem('invite-login') as HTMLInputElement).value.trim();
    const email = (form.elements.namedItem('invite-email') as HTMLInputElement).value.trim();
    const role = (form.elements.namedItem('invite-role') as HTMLSelectElement).value as User['role'];
    void act(async () => {
      setLink(await inviteUser(login, role, email || undefined));
      form.reset();
    });
  };

  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: 'Team users' }]} />
      <main class="accounts">
        <h1>Users of team {props.session.team.name}</h1>
        {!isAdmin && <p class="notice">Only the team’s owners and admins manage its users.</p>}
        {isAdmin && (
          <form class="invite" onSubmit={invite}>
            <h2>Invite a user</h2>
            <label for="invite-login">Login</label>
            <input id="invite-login" name="invite-login" type="text" required pattern="[A-Za-z0-9._@\-]+" maxLength={100} autocomplete="off" />
            <label for="invite-email">Email (optional)</label>
            <input id="invite-email" name="invite-email" type="email" maxLength={254} autocomplete="off" />
            <label for="invite-role">Role</label>
            <select id="invite-role" name="invite-role">
              {ROLES.filter((r) => r !== 'owner' || props.session.user.role === 'owner').map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <button type="submit" disabled={busy}>
              Invite
            </button>
          </form>
        )}
        {link && (
          <section class="notice link-shown" aria-live="polite">
            <p>
              {link.link.purpose === 'invitation' ? 'Invitation' : 'Password reset link'} for <strong>{link.user.login}</strong>, until {new Date(link.link.expiresAt).toLocaleString()}. It is
              shown this once: copy it and hand it over.
            </p>
            <label for="shown-link">Link</label>
            <input id="shown-link" readOnly value={link.link.url} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
          </section>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {users === null ? (
          <p role="status">Loading…</p>
        ) : (
          <table class="users">
            <caption class="visually-hidden">The team’s users</caption>
            <thead>
              <tr>
                <th scope="col">Login</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                {isAdmin && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {users.map((user) => {
                const self = user.id === props.session.user.id;
                const locked = self || (user.role === 'owner' && props.session.user.role !== 'owner');
                return (
                  <tr key={user.id} data-login={user.login}>
                    <th scope="row">{user.login}</th>
                    <td>
                      {isAdmin && !locked ? (
                        <select aria-label={`Role of ${user.login}`} value={user.role} disabled={busy} onChange={(e) => void act(() => changeUser(user.id, { role: (e.currentTarget as HTMLSelectElement).value as User['role'] }))}>
                          {ROLES.filter((r) => r !== 'owner' || props.session.user.role === 'owner').map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      ) : (
                        user.role
                      )}
                    </td>
                    <td>{stateOf(user)}</td>
                    {isAdmin && (
                      <td>
                        <div class="actions">
                        {!locked && !user.disabledAt && (
                          <button type="button" class="quiet" disabled={busy} onClick={() => void act(async () => setLink(await newPasswordLink(user.id)))}>
                            {user.hasPassword ? `Reset password of ${user.login}` : `New invitation for ${user.login}`}
                          </button>
                        )}
                        {!locked && (
                          <button type="button" class={user.disabledAt ? 'quiet' : 'danger'} disabled={busy} onClick={() => void act(() => changeUser(user.id, { disabled: !user.disabledAt }))}>
                            {user.disabledAt ? `Enable ${user.login}` : `Disable ${user.login}`}
                          </button>
                        )}
                        </div>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </main>
    </>
  );
}
