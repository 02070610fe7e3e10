// The bar on top of every signed-in page: the app's name (home), where the page is, who is signed in.
import type { ComponentChildren } from 'preact';
import type { Session } from '../api.ts';
import { Link } from './link.tsx';

export function Header(props: { session: Session; onSignOut: () => void; trail?: ComponentChildren }) {
  return (
    <header class="top">
      <Link href="/" class="brand">
        Annostore
      </Link>
      <nav aria-label="Breadcrumb" class="trail">
        {props.trail}
      </nav>
      <Link href="/tasks" class="tasks-link">
        Tasks
      </Link>
      <div class="who">
        <span title={`key ${props.session.key.prefix}…, ${props.session.key.scope}`}>
          {props.session.user.login} · {props.session.team.name}
        </span>
        <button type="button" class="quiet" onClick={props.onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
