// A project's tags as a list of checkboxes (with their hotkeys), checked where `checked` has the title.
import type { Tag } from '../api.ts';

export function TagToggles(props: { tags: Tag[]; checked: string[]; onToggle: (title: string) => void }) {
  return (
    <ul class="toggles">
      {props.tags.map((t) => (
        <li key={t.id}>
          <label title={t.title}>
            <input type="checkbox" checked={props.checked.includes(t.title)} onChange={() => props.onToggle(t.title)} />
            <span class="toggle-title">{t.title}</span>
            {t.hotkey && <kbd>{t.hotkey}</kbd>}
          </label>
        </li>
      ))}
    </ul>
  );
}
