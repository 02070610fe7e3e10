// Someone else saved the image while it was being edited here: both versions side by side, and a
// deliberate choice. Nothing is overwritten until "Keep mine" is pressed.
import { useModal } from './use-modal.ts';
import type { Annotation, ImageClass } from '../api.ts';
import type { EditorDocument } from '../editor/document.ts';
import { AnnotationLayer, type LayerObject } from './annotation-layer.tsx';

interface Props {
  open: boolean;
  imageUrl: string;
  theirs: Annotation | null;
  mine: EditorDocument;
  classes: Map<string, ImageClass>;
  saving: boolean;
  onKeepMine: () => void;
  onReloadTheirs: () => void;
  onClose: () => void;
}

const NONE = new Set<string>();
const ignore = () => undefined;

function Version(props: { title: string; objects: readonly LayerObject[]; description: string; tags: string[]; size: { width: number; height: number }; imageUrl: string; classes: Map<string, ImageClass>; id: string }) {
  const counts = new Map<string, number>();
  for (const o of props.objects) counts.set(o.classTitle, (counts.get(o.classTitle) ?? 0) + 1);
  return (
    <figure class="version">
      <figcaption>
        <strong>{props.title}</strong>: {props.objects.length} objects
        {counts.size > 0 && ` (${[...counts].map(([title, n]) => `${n} ${title}`).join(', ')})`}
      </figcaption>
      <svg viewBox={`0 0 ${props.size.width} ${props.size.height}`} role="img" aria-label={`${props.title}: ${props.objects.length} objects`}>
        <image href={props.imageUrl} width={props.size.width} height={props.size.height} />
        <AnnotationLayer objects={props.objects} classes={props.classes} hidden={NONE} hovered={null} onHover={ignore} opacity={0.35} idPrefix={props.id} />
      </svg>
      <p class="quiet-text">
        Description: {props.description || 'none'} · Tags: {props.tags.join(', ') || 'none'}
      </p>
    </figure>
  );
}

export function ConflictDialog(props: Props) {
  const dialog = useModal(props.open);
  const size = props.mine.size;
  return (
    <dialog ref={dialog} class="conflict" aria-labelledby="conflict-title" onClose={props.onClose}>
      <h2 id="conflict-title">Someone else changed this image</h2>
      <p>Your changes were not saved. Their version was saved after you opened the image; choose which one to keep.</p>
      {props.theirs && (
        <div class="versions">
          <Version title="Theirs (saved)" objects={props.theirs.objects} description={props.theirs.description} tags={props.theirs.tags} size={size} imageUrl={props.imageUrl} classes={props.classes} id="theirs" />
          <Version title="Yours (not saved)" objects={props.mine.objects} description={props.mine.description} tags={props.mine.tags} size={size} imageUrl={props.imageUrl} classes={props.classes} id="mine" />
        </div>
      )}
      <div class="conflict-actions">
        <button type="button" onClick={props.onReloadTheirs} disabled={props.saving}>
          Reload theirs
        </button>
        <button type="button" class="danger" onClick={props.onKeepMine} disabled={props.saving}>
          Keep mine (replace theirs)
        </button>
        <button type="button" class="quiet" onClick={props.onClose}>
          Keep editing
        </button>
      </div>
    </dialog>
  );
}
