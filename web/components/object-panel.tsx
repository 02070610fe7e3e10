// The selected object: its class (among those of its shape), its tags, its description, its holes,
// and what the server refused about it at the last save. Every change is one edit, to undo.
import { useLayoutEffect, useState } from 'preact/hooks';
import type { ImageClass, Tag } from '../api.ts';
import { type EditObject, removeHole, removeObject, removeVertex, setClass, setObjectDescription, setObjectTagValue, setObjectTags, toggled } from '../editor/document.ts';
import type { Shape } from '../editor/geometry.ts';
import type { Edit, Selection } from './editor-overlay.tsx';
import { TagToggles } from './tag-toggles.tsx';

interface Props {
  object: EditObject;
  vertex: Selection['vertex'];
  classes: ImageClass[];
  shapeOf: (title: string) => Shape | undefined;
  /** The project's object tags (scope `figures`). */
  tags: Tag[];
  problem: string | undefined;
  onEdit: (edit: Edit, select?: Selection | null) => void;
}

export function ObjectPanel(props: Props) {
  const { object } = props;
  const key = object.key;
  const shape = props.shapeOf(object.classTitle);
  const [description, setDescription] = useState(object.description);
  // An undo or redo shows at once.
  useLayoutEffect(() => setDescription(object.description), [object.description]);
  const titles = props.tags.map((t) => t.title);
  return (
    <section class="object-panel" aria-labelledby="object-panel-title">
      <h2 id="object-panel-title" title={object.classTitle}>
        Selected: {object.classTitle} {object.id === undefined ? '(new)' : `#${object.id}`}
      </h2>
      {props.problem && (
        <p class="error" role="alert">
          Refused by the server: {props.problem}
        </p>
      )}
      <label for="object-class">Class</label>
      <select id="object-class" value={object.classTitle} onChange={(e) => props.onEdit((doc) => setClass(doc, key, (e.currentTarget as HTMLSelectElement).value, props.shapeOf))}>
        {props.classes
          .filter((c) => c.shape === shape || c.title === object.classTitle)
          .map((c) => (
            <option key={c.id} value={c.title}>
              {c.title}
            </option>
          ))}
      </select>
      <fieldset>
        <legend>Object tags</legend>
        {props.tags.length === 0 && <p class="quiet-text">The project has no object tags.</p>}
        <TagToggles
          tags={props.tags}
          checked={object.tags}
          values={object.tagValues}
          of="object"
          onToggle={(title) => props.onEdit((doc) => setObjectTags(doc, key, toggled(object.tags, title, titles)))}
          onValue={(title, value) => props.onEdit((doc) => setObjectTagValue(doc, key, title, value))}
        />
      </fieldset>
      <label for="object-description">Object description</label>
      <textarea id="object-description" rows={2} maxLength={10_000} value={description} onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)} onChange={() => props.onEdit((doc) => setObjectDescription(doc, key, description))} />
      {object.points.interior.length > 0 && (
        <ul class="holes">
          {object.points.interior.map((hole, i) => (
            <li key={i}>
              Hole {i + 1} ({hole.length} points)
              <button type="button" class="quiet" onClick={() => props.onEdit((doc) => removeHole(doc, key, i), { key })}>
                Remove hole {i + 1}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="object-actions">
        {props.vertex && (shape === 'polygon' || shape === 'line') && (
          <button type="button" class="quiet" onClick={() => props.onEdit((doc) => removeVertex(doc, key, shape, props.vertex!.ring, props.vertex!.index), { key })}>
            Delete vertex
          </button>
        )}
        <button type="button" class="danger" onClick={() => props.onEdit((doc) => removeObject(doc, key), null)}>
          Delete object
        </button>
      </div>
    </section>
  );
}
