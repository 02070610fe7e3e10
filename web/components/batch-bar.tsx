// What can be done to the images selected in the gallery at once: add an image tag (an annotator's),
// mark them as ground truth or unmark them, delete them (a manager's). Only what the caller's role in
// the project allows is offered.
import { useState } from 'preact/hooks';
import { type Tag, addImageTag, deleteImage, eachOf, markGroundTruth, unmarkGroundTruth } from '../api.ts';

interface Props {
  projectId: number;
  selected: Set<number>;
  tags: Tag[];
  /** Adding a tag writes each image's annotation: an annotator's or above. */
  canTag: boolean;
  /** Deleting images and marking ground truth are a manager's. */
  canDelete: boolean;
  onClear: () => void;
  /** Told when the images changed, with what was done: the gallery reads them again and says it until dismissed. */
  onChanged: (result: string) => void;
}

export function BatchBar(props: Props) {
  // 0 until one is chosen: the first tag then, even if the tags arrived after the bar appeared.
  const [chosenTagId, setTagId] = useState(0);
  const tagId = chosenTagId || (props.tags[0]?.id ?? 0);
  const [state, setState] = useState('');
  const ids = [...props.selected];
  const count = ids.length === 1 ? '1 image' : `${ids.length} images`;

  const run = async (what: string, work: (id: number) => Promise<void>) => {
    setState(`${what}: 0 of ${ids.length}…`);
    const failed = await eachOf(ids, work, (done) => setState(`${what}: ${done} of ${ids.length}…`));
    const result = failed.length ? `${what}: ${failed.length} of ${ids.length} failed.` : `${what}: done for ${count}.`;
    setState(result);
    props.onChanged(result);
  };
  const tag = () => {
    const title = props.tags.find((t) => t.id === tagId)?.title;
    if (title) void run(`Tagging “${title}”`, (id) => addImageTag(id, title));
  };
  // One request for the whole selection (a thousand ids a request): ground truth is marked all or nothing.
  const groundTruth = async (mark: boolean) => {
    setState(mark ? 'Marking as ground truth…' : 'Unmarking ground truth…');
    try {
      await (mark ? markGroundTruth : unmarkGroundTruth)(props.projectId, ids);
      const result = mark ? `Marked ${count} as ground truth: their objects as they are now are the reference.` : `Unmarked ${count}: no longer ground truth.`;
      setState(result);
      props.onChanged(result);
    } catch (failure) {
      setState(`${mark ? 'Marking' : 'Unmarking'} failed: ${(failure as Error).message}`);
    }
  };
  const remove = () => {
    if (window.confirm(`Delete ${count}? This cannot be undone.`)) void run('Deleting', deleteImage);
  };

  return (
    <div class="batch-bar" role="region" aria-label="Selected images">
      <strong>{count} selected</strong>
      {props.canTag && props.tags.length > 0 && (
        <>
          <label for="batch-tag">Tag</label>
          <select id="batch-tag" value={tagId} onChange={(e) => setTagId(Number((e.currentTarget as HTMLSelectElement).value))}>
            {props.tags.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title}
              </option>
            ))}
          </select>
          <button type="button" onClick={tag}>
            Add tag
          </button>
        </>
      )}
      {props.canDelete && (
        <>
          <button type="button" onClick={() => void groundTruth(true)} title="Their objects as they are now become the reference that honeypots in jobs are compared with">
            Mark as ground truth
          </button>
          <button type="button" onClick={() => void groundTruth(false)}>
            Unmark
          </button>
        </>
      )}
      {props.canDelete && (
        <button type="button" class="danger" onClick={remove}>
          Delete
        </button>
      )}
      <button type="button" class="quiet" onClick={props.onClear}>
        Clear selection
      </button>
      <span role="status">{state}</span>
    </div>
  );
}
