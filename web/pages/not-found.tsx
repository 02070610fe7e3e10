// What a wrong address shows (a mistyped path, an id that is not a number, a project or image that is
// gone or the team cannot see): a page that says so and links back, never the API's words.
import type { Session } from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';

export interface NotFound {
  /** What was looked for, for the sentence: "This project". */
  what?: string;
  back?: { href: string; label: string };
}

export function NotFoundPage(props: { session: Session; onSignOut: () => void } & NotFound) {
  document.title = 'Not found · Annostore';
  const back = props.back ?? { href: '/', label: 'Back to the projects' };
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} />
      <main class="not-found">
        <h1>Not found</h1>
        <p>{props.what ? `${props.what} does not exist, or your team cannot see it.` : 'There is no page at this address.'}</p>
        <p>
          <Link href={back.href}>{back.label}</Link>
        </p>
      </main>
    </>
  );
}
