// The bar on top of every signed-in page: the app's name (home), where the page is, who is signed in.
import type { Session } from '../api.ts';
import { Link } from './link.tsx';

/** A step of the breadcrumb trail after "Projects"; the last one is the page shown. */
export interface Crumb {
  label: string;
  href?: string;
}

export function Header(props: { session: Session; onSignOut: () => void; trail?: Crumb[] }) {
  return (
    <header class="top">
      <Link href="/" class="brand">
        Annostore
      </Link>
      <nav aria-label="Breadcrumb" class="trail">
        {props.trail && (
          <ol>
            <li>
              <Link href="/">Projects</Link>
            </li>
            {props.trail.map((crumb, i) => {
              const current = i === props.trail!.length - 1 ? 'page' : undefined;
              return (
                <li key={i}>
                  {crumb.href ? (
                    <Link href={crumb.href} aria-current={current} title={crumb.label}>
                      {crumb.label}
                    </Link>
                  ) : (
                    <span aria-current={current} title={crumb.label}>
                      {crumb.label}
                    </span>
                  )}
                </li>
              );
            })}
          </ol>
        )}
      </nav>
      <Link href="/my-work" class="tasks-link">
        My work
      </Link>
      <Link href="/tasks" class="tasks-link">
        Tasks
      </Link>
      {props.session.user.role !== 'member' && (
        <Link href="/team/users" class="tasks-link">
          Users
        </Link>
      )}
      <div class="who">
        <Link href="/account" class="tasks-link" title={`Your account (key ${props.session.key.prefix}…, ${props.session.key.scope})`}>
          {props.session.user.login}
          <span> · {props.session.team.name}</span>
        </Link>
        <button type="button" class="quiet" onClick={props.onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
