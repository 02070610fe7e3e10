// An import's warnings: how many, and the first ones (file and message) when opened.
import type { Task } from '../api.ts';
import { plural, warningsOf } from '../task-text.ts';

export function TaskWarnings(props: { task: Task; open?: boolean }) {
  const { list, total } = warningsOf(props.task);
  if (total === 0) return null;
  return (
    <details class="task-warnings" open={props.open}>
      <summary>{plural(total, 'warning', 'warnings')}</summary>
      <ul>
        {list.map((w, i) => (
          <li key={i}>
            {w.path && <code>{w.path}</code>} {w.message}
          </li>
        ))}
      </ul>
      {total > list.length && <p>and {plural(total - list.length, 'more', 'more')} not kept</p>}
    </details>
  );
}
