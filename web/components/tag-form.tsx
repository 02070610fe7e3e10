// A tag's definition as a form: title, hotkey, value type and (for "one of a list") its values, one a
// line; the scope only when the tag is new (a tag keeps its scope). Used to add a tag and to edit one.
import { useState } from 'preact/hooks';
import type { Tag, TagDefinition } from '../api.ts';

export const VALUE_TYPE_LABELS: Record<Tag['valueType'], string> = {
  none: 'None',
  any_string: 'Any text',
  any_number: 'Any number',
  oneof_string: 'One of a list',
};

interface Props {
  /** The tag edited; a new one when absent. */
  tag?: Tag;
  /** For the inputs' ids: one form per tag on the page. */
  idPrefix: string;
  busy: boolean;
  onSubmit: (definition: TagDefinition & Pick<Tag, 'scope'>) => void;
  onCancel?: () => void;
}

export function TagForm(props: Props) {
  const { tag, idPrefix: id } = props;
  const [title, setTitle] = useState(tag?.title ?? '');
  const [scope, setScope] = useState<Tag['scope']>(tag?.scope ?? 'figures');
  const [hotkey, setHotkey] = useState(tag?.hotkey ?? '');
  const [valueType, setValueType] = useState<Tag['valueType']>(tag?.valueType ?? 'none');
  const [values, setValues] = useState((tag?.values ?? []).join('\n'));
  const list = values
    .split('\n')
    .map((v) => v.trim())
    .filter((v) => v !== '');

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    props.onSubmit({ title: title.trim(), scope, hotkey, valueType, ...(valueType === 'oneof_string' ? { values: [...new Set(list)] } : {}) });
  };

  return (
    <form class="tag-form" onSubmit={submit}>
      <fieldset disabled={props.busy}>
        <div class="tag-form-fields">
          <label for={`${id}-title`}>Title</label>
          <input id={`${id}-title`} required maxLength={255} value={title} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
          {!tag && (
            <>
              <label for={`${id}-scope`}>On</label>
              <select id={`${id}-scope`} value={scope} onChange={(e) => setScope((e.currentTarget as HTMLSelectElement).value as Tag['scope'])}>
                <option value="figures">Objects</option>
                <option value="images">Images</option>
              </select>
            </>
          )}
          <label for={`${id}-hotkey`}>Hotkey</label>
          <input id={`${id}-hotkey`} class="hotkey-input" maxLength={1} value={hotkey} onInput={(e) => setHotkey((e.currentTarget as HTMLInputElement).value)} />
          <label for={`${id}-type`}>Value</label>
          <select id={`${id}-type`} value={valueType} onChange={(e) => setValueType((e.currentTarget as HTMLSelectElement).value as Tag['valueType'])}>
            {Object.entries(VALUE_TYPE_LABELS).map(([type, label]) => (
              <option key={type} value={type}>
                {label}
              </option>
            ))}
          </select>
          {valueType === 'oneof_string' && (
            <>
              <label for={`${id}-values`}>Values, one a line</label>
              <textarea id={`${id}-values`} rows={4} required value={values} onInput={(e) => setValues((e.currentTarget as HTMLTextAreaElement).value)} />
            </>
          )}
        </div>
        <div class="tag-form-actions">
          <button type="submit">{props.busy ? 'Saving…' : tag ? 'Save tag' : 'Add tag'}</button>
          {props.onCancel && (
            <button type="button" class="quiet" onClick={props.onCancel}>
              Cancel
            </button>
          )}
        </div>
      </fieldset>
    </form>
  );
}
