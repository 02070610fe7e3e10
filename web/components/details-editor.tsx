// An image's description and tags, edited in place: one PUT of its annotation under If-Match, so a
// change made meanwhile by someone else is not overwritten (the form says so and shows theirs).
import { useLayoutEffect, useState } from 'preact/hooks';
import { type Annotation, ApiError, type Tag, type Tagged, getAnnotation, saveImageDetails } from '../api.ts';

interface Props {
  imageId: number;
  annotation: Tagged<Annotation>;
  /** The project's image tags, all of which may be set. */
  tags: Tag[];
  readOnly: boolean;
  onSaved: (annotation: Tagged<Annotation>) => void;
}

export function DetailsEditor(props: Props) {
  const [description, setDescription] = useState(props.annotation.value.description);
  const [chosen, setChosen] = useState(new Set(props.annotation.value.tags));
  const [state, setState] = useState<{ busy: boolean; message: string; error: boolean }>({ busy: false, message: '', error: false });
  // Before the browser paints: a reloaded annotation never shows beside the old form.
  useLayoutEffect(() => {
    setDescription(props.annotation.value.description);
    setChosen(new Set(props.annotation.value.tags));
  }, [props.annotation]);

  const changed = description !== props.annotation.value.description || chosen.size !== props.annotation.value.tags.length || props.annotation.value.tags.some((t) => !chosen.has(t));

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    setState({ busy: true, message: '', error: false });
    try {
      // In the project's tag order, as the server lists them.
      const tags = props.tags.map((t) => t.title).filter((title) => chosen.has(title));
      props.onSaved(await saveImageDetails(props.imageId, props.annotation, { description, tags }));
      setState({ busy: false, message: 'Saved.', error: false });
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 412) {
        props.onSaved(await getAnnotation(props.imageId));
        setState({ busy: false, message: 'Someone changed this image meanwhile: their version is shown; make your change again.', error: true });
      } else {
        setState({ busy: false, message: `Not saved: ${(failure as Error).message}`, error: true });
      }
    }
  };

  const toggle = (title: string) =>
    setChosen((before) => {
      const after = new Set(before);
      if (!after.delete(title)) after.add(title);
      return after;
    });

  return (
    <form class="details-editor" onSubmit={save}>
      <fieldset disabled={props.readOnly || state.busy}>
        <legend>Tags</legend>
        {props.tags.length === 0 && <p class="quiet-text">The project has no image tags.</p>}
        <ul class="toggles">
          {props.tags.map((t) => (
            <li key={t.id}>
              <label title={t.title}>
                <input type="checkbox" checked={chosen.has(t.title)} onChange={() => toggle(t.title)} />
                <span class="toggle-title">{t.title}</span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <label for="description">Description</label>
      <textarea id="description" rows={3} maxLength={10_000} value={description} disabled={props.readOnly || state.busy} onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)} />
      {props.readOnly ? (
        <p class="quiet-text">Read-only.</p>
      ) : (
        <button type="submit" disabled={!changed || state.busy}>
          {state.busy ? 'Saving…' : 'Save'}
        </button>
      )}
      {state.message && (
        <p class={state.error ? 'error' : 'quiet-text'} role={state.error ? 'alert' : 'status'}>
          {state.message}
        </p>
      )}
    </form>
  );
}
