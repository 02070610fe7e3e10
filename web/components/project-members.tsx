// The members of a project, for its managers (docs/accounts.md#project-roles): each member's role,
// changed or taken away; a user of the team added with a role; and the role of the team's other
// members (the project's memberDefaultRole, or none: the project is hidden from them).
import { useEffect, useState } from 'preact/hooks';
import { type ProjectMembers, type ProjectRole, type User, listProjectMembers, listUsers, putProjectMember, removeProjectMember, setMemberDefaultRole } from '../api.ts';

const ROLES: readonly ProjectRole[] = ['viewer', 'annotator', 'reviewer', 'manager'];
const ROLE_LABELS: Record<ProjectRole, string> = {
  viewer: 'Viewer: looks',
  annotator: 'Annotator: edits annotations and tags',
  reviewer: 'Reviewer: also reviews',
  manager: 'Manager: everything',
};
/** The select's value for "no role": the project is hidden. */
const NONE = 'none';

export function ProjectMembersPanel(props: { projectId: number }) {
  const [members, setMembers] = useState<ProjectMembers | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [adding, setAdding] = useState<{ userId: number; role: ProjectRole }>({ userId: 0, role: 'annotator' });
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);

  const load = () => listProjectMembers(props.projectId).then(setMembers, (failure: Error) => setMessage({ text: failure.message, error: true }));
  useEffect(() => {
    void load();
    listUsers().then((all) => setUsers(all.filter((u) => u.disabledAt === null)), () => undefined);
  }, [props.projectId]);

  /** Runs a change, reads the members again and says what was done (or why not). */
  const run = async (work: () => Promise<string>) => {
    setBusy(true);
    setMessage(null);
    try {
      const done = await work();
      await load();
      setMessage({ text: done, error: false });
    } catch (failure) {
      setMessage({ text: `Not saved: ${(failure as Error).message}`, error: true });
    } finally {
      setBusy(false);
    }
  };

  const listed = new Set(members?.items.map((m) => m.userId));
  // Owners and admins manage every project already; a role here would change nothing for them.
  const addable = users.filter((u) => !listed.has(u.id) && u.role === 'member');
  const chosen = addable.some((u) => u.id === adding.userId) ? adding.userId : (addable[0]?.id ?? 0);

  return (
    <section class="schema-section members" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <p class="quiet-text">Team owners and admins manage every project, whatever their role here.</p>
      {message && (
        <p class={message.error ? 'error' : 'quiet-text'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      {!members && !message && <p role="status">Loading members…</p>}
      {members && (
        <>
          <label class="member-default">
            Role of the team’s other members{' '}
            <select
              value={members.memberDefaultRole ?? NONE}
              disabled={busy}
              onChange={(e) => {
                const value = (e.currentTarget as HTMLSelectElement).value;
                const role = value === NONE ? null : (value as ProjectRole);
                void run(async () => (await setMemberDefaultRole(props.projectId, role), role ? `The team’s other members are now ${role}s here.` : 'The project is now hidden from the team’s other members.'));
              }}
            >
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABELS[r]}
                </option>
              ))}
              <option value={NONE}>None: the project is hidden from them</option>
            </select>
          </label>
          {members.items.length === 0 ? (
            <p>No member has a role of their own here yet.</p>
          ) : (
            <div class="table-scroll">
              <table class="members-table">
                <thead>
                  <tr>
                    <th scope="col">User</th>
                    <th scope="col">Role</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {members.items.map((m) => (
                    <tr key={m.userId}>
                      <th scope="row">
                        {m.login}
                        {m.teamRole !== 'member' && <span class="quiet-text"> · team {m.teamRole}</span>}
                      </th>
                      <td>
                        <select
                          aria-label={`Role of ${m.login}`}
                          value={m.role}
                          disabled={busy}
                          onChange={(e) => {
                            const role = (e.currentTarget as HTMLSelectElement).value as ProjectRole;
                            void run(async () => (await putProjectMember(props.projectId, m.userId, role), `${m.login} is now ${role}.`));
                          }}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <button type="button" class="quiet" disabled={busy} aria-label={`Remove ${m.login}`} onClick={() => void run(async () => (await removeProjectMember(props.projectId, m.userId), `${m.login} has no role of their own here any more.`))}>
                          Remove
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {addable.length > 0 && (
            <form
              class="member-add"
              aria-label="Add a member"
              onSubmit={(e) => {
                e.preventDefault();
                const user = addable.find((u) => u.id === chosen);
                if (user) void run(async () => (await putProjectMember(props.projectId, user.id, adding.role), `${user.login} is now ${adding.role}.`));
              }}
            >
              <label>
                User{' '}
                <select value={chosen} onChange={(e) => setAdding({ ...adding, userId: Number((e.currentTarget as HTMLSelectElement).value) })}>
                  {addable.map((u) => (
                    <option key={u.id} value={u.id}>
                      {u.login}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                As{' '}
                <select value={adding.role} onChange={(e) => setAdding({ ...adding, role: (e.currentTarget as HTMLSelectElement).value as ProjectRole })}>
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" disabled={busy}>
                Add member
              </button>
            </form>
          )}
        </>
      )}
    </section>
  );
}
