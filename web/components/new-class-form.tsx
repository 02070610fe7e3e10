// A new class: its title, its shape (chosen once: objects of a class keep one geometry) and its
// colour, which starts as the palette's next one apart from the project's other classes.
import { useState } from 'preact/hooks';
import { nextClassColor } from '../../src/formats/class-colors.ts';
import { ApiError, type ImageClass, createClass } from '../api.ts';
import { ColorPicker } from './color-picker.tsx';

export const SHAPES: ImageClass['shape'][] = ['rectangle', 'polygon', 'line', 'point', 'bitmap'];

interface Props {
  projectId: number;
  classes: ImageClass[];
  /** The shape, when it is not the user's to choose (the editor's tool that needs it). */
  shape?: ImageClass['shape'];
  onCreated: (created: ImageClass) => void;
  onCancel?: () => void;
  /** Prefixes the fields' ids: the form may be on a page twice. */
  idPrefix: string;
}

export function NewClassForm(props: Props) {
  const [title, setTitle] = useState('');
  const [shape, setShape] = useState<ImageClass['shape']>(props.shape ?? 'rectangle');
  const suggested = nextClassColor(props.classes.map((c) => c.color));
  const [color, setColor] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const id = (name: string) => `${props.idPrefix}-${name}`;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!title.trim()) return setError('A class needs a title.');
    setBusy(true);
    setError('');
    try {
      const created = await createClass(props.projectId, { title: title.trim(), shape, color: color ?? suggested });
      setTitle('');
      setColor(null);
      props.onCreated(created);
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 409 ? `The project already has a class titled “${title.trim()}”.` : (failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="new-class" onSubmit={(e) => void submit(e)} aria-label="New class">
      <div class="field-row">
        <label for={id('title')}>Title</label>
        <input id={id('title')} value={title} maxLength={255} required onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
        <label for={id('shape')}>Shape</label>
        <select id={id('shape')} value={shape} disabled={props.shape !== undefined} onChange={(e) => setShape((e.currentTarget as HTMLSelectElement).value as ImageClass['shape'])}>
          {SHAPES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <ColorPicker value={color ?? suggested} onChange={setColor} taken={props.classes.map((c) => c.color)} label="Colour" />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="form-actions">
        {props.onCancel && (
          <button type="button" class="quiet" onClick={props.onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add class'}
        </button>
      </div>
    </form>
  );
}
