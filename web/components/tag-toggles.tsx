// A project's tags as a list of checkboxes (with their hotkeys), checked where `checked` has the title;
// a checked tag with a value type has its value beside it, in an input of that type.
import type { Tag } from '../api.ts';
import type { TagValue, TagValues } from '../editor/document.ts';
import { TagValueInput } from './tag-value-input.tsx';

interface Props {
  tags: Tag[];
  checked: string[];
  onToggle: (title: string) => void;
  /** The values of the checked tags; with onValue, typed tags show an input. */
  values?: TagValues;
  onValue?: (title: string, value: TagValue | null) => void;
  /** What the tags are on, for the inputs' labels ("object", "image"). */
  of?: string;
}

export function TagToggles(props: Props) {
  return (
    <ul class="toggles">
      {props.tags.map((t) => {
        const on = props.checked.includes(t.title);
        return (
          <li key={t.id} class={on && props.onValue && t.valueType !== 'none' ? 'tag-with-value' : undefined}>
            <label title={t.title}>
              <input type="checkbox" checked={on} onChange={() => props.onToggle(t.title)} />
              <span class="toggle-title">{t.title}</span>
              {t.hotkey && <kbd>{t.hotkey}</kbd>}
            </label>
            {on && props.onValue && (
              <TagValueInput tag={t} value={props.values?.[t.title]} label={`${t.title} value${props.of ? ` of the ${props.of}` : ''}`} onValue={(value) => props.onValue!(t.title, value)} />
            )}
          </li>
        );
      })}
    </ul>
  );
}
