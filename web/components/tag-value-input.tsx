// The value of one tag, in an input of the tag's value type: a number for any_number, a list to pick
// from for oneof_string, text for any_string. Empty means no value. A text or number is set when it
// is left (change), not at each key, so one edit is one undo step.
import { useLayoutEffect, useState } from 'preact/hooks';
import type { Tag } from '../api.ts';
import type { TagValue } from '../editor/document.ts';

interface Props {
  tag: Tag;
  value: TagValue | undefined;
  /** Labels the input for screen readers (the tag's title and where it is). */
  label: string;
  disabled?: boolean;
  onValue: (value: TagValue | null) => void;
}

export function TagValueInput(props: Props) {
  const { tag } = props;
  const shown = props.value === undefined ? '' : String(props.value);
  const [text, setText] = useState(shown);
  useLayoutEffect(() => setText(shown), [shown]);
  if (tag.valueType === 'none') return null;
  if (tag.valueType === 'oneof_string' && tag.values) {
    // A value stored before the list changed (or imported) stays selectable until it is changed.
    const options = props.value !== undefined && !tag.values.includes(String(props.value)) ? [...tag.values, String(props.value)] : tag.values;
    return (
      <select class="tag-value" aria-label={props.label} value={shown} disabled={props.disabled} onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value || null)}>
        <option value="">—</option>
        {options.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  }
  const numeric = tag.valueType === 'any_number';
  const common = {
    class: 'tag-value',
    'aria-label': props.label,
    value: text,
    disabled: props.disabled,
    onInput: (e: Event) => setText((e.currentTarget as HTMLInputElement).value),
    onChange: (e: Event) => {
      const raw = (e.currentTarget as HTMLInputElement).value;
      if (raw === '') return props.onValue(null);
      if (!numeric) return props.onValue(raw);
      const n = Number(raw);
      if (Number.isFinite(n)) props.onValue(n);
    },
  };
  return numeric ? <input type="number" step="any" {...common} /> : <input type="text" maxLength={4096} {...common} />;
}

/** A tag with its value as the interface writes it: `name: value`, or the name alone. */
export const tagText = (title: string, values: Readonly<Record<string, TagValue>> | undefined): string =>
  values && Object.hasOwn(values, title) ? `${title}: ${values[title]}` : title;
