// The image's own tags and description in the editor: part of the document, so they are saved,
// undone and checked for conflicts with the objects.
import { useLayoutEffect, useState } from 'preact/hooks';
import type { Tag } from '../api.ts';
import { type TagValues, setImageDescription, setImageTagValue, setImageTags, toggled } from '../editor/document.ts';
import type { Edit } from './editor-overlay.tsx';
import { TagToggles } from './tag-toggles.tsx';

interface Props {
  description: string;
  tags: string[];
  tagValues?: TagValues;
  /** The project's image tags (scope `images`). */
  projectTags: Tag[];
  onEdit: (edit: Edit) => void;
}

export function ImageFields(props: Props) {
  const [description, setDescription] = useState(props.description);
  // An undo or a reload shows at once, before the browser paints.
  useLayoutEffect(() => setDescription(props.description), [props.description]);
  const titles = props.projectTags.map((t) => t.title);
  return (
    <div class="details-editor">
      <fieldset>
        <legend>Tags</legend>
        {props.projectTags.length === 0 && <p class="quiet-text">The project has no image tags.</p>}
        <TagToggles
          tags={props.projectTags}
          checked={props.tags}
          values={props.tagValues}
          of="image"
          onToggle={(title) => props.onEdit((doc) => setImageTags(doc, toggled(doc.tags, title, titles)))}
          onValue={(title, value) => props.onEdit((doc) => setImageTagValue(doc, title, value))}
        />
      </fieldset>
      <label for="description">Description</label>
      <textarea
        id="description"
        rows={3}
        maxLength={10_000}
        value={description}
        onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)}
        onChange={(e) => {
          const text = (e.currentTarget as HTMLTextAreaElement).value;
          props.onEdit((doc) => setImageDescription(doc, text));
        }}
      />
    </div>
  );
}
