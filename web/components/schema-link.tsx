// Where a project's datasets and classes are edited, from the gallery's sidebar.
import { Link } from './link.tsx';

export function SchemaLink(props: { projectId: number }) {
  return (
    <p class="schema-link">
      <Link href={`/projects/${props.projectId}/settings`}>Edit datasets and classes</Link>
    </p>
  );
}
