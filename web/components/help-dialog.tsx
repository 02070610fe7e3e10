// The list of keyboard shortcuts, opened with `?`; the editor's too when the key may write.
import { useModal } from './use-modal.ts';

export const SHORTCUTS: [string, string][] = [
  ['← or D', 'previous image'],
  ['→ or F', 'next image'],
  ['+ / −', 'zoom in / out at the centre'],
  ['0', 'fit the image to the screen'],
  ['↑ ↓ Home End', 'in the list of objects: the row above, below, first, last'],
  ['?', 'show these shortcuts'],
  ['Esc', 'close this list'],
];

export const EDITING_SHORTCUTS: [string, string][] = [
  ['V', 'select: click an object, drag it or a vertex; drag an edge to add a vertex'],
  ['R P L O', 'rectangle (drag), polygon (click points), line, point'],
  ['B E', 'brush, eraser (bitmap classes); [ ] size'],
  ['H', 'cut a hole into the selected polygon'],
  ['S', 'segment: click inside an object (Shift or right click excludes, drag a box); Enter keeps the mask as a polygon or bitmap'],
  ['Enter', 'finish a polygon, line or hole (or click its first point)'],
  ['Backspace', 'while drawing: drop the last point'],
  ['Esc', 'stop drawing, clear the selection, back to Select'],
  ['1–9', 'class of new objects (the tool follows its shape)'],
  ['Delete', 'the selected vertex, else the selected object'],
  ['Alt+click', 'on a vertex: delete it'],
  ['tag hotkey', 'toggle the tag on the selected object (or image)'],
  ['Ctrl+Z', 'undo'],
  ['Ctrl+Y', 'redo (also Ctrl+Shift+Z)'],
  ['Ctrl+S', 'save'],
  ['middle drag', 'pan while a drawing tool is on'],
];

function Shortcuts(props: { list: [string, string][] }) {
  return (
    <dl>
      {props.list.map(([keys, what]) => (
        <div key={`${keys} ${what}`}>
          <dt>
            <kbd>{keys}</kbd>
          </dt>
          <dd>{what}</dd>
        </div>
      ))}
    </dl>
  );
}

export function HelpDialog(props: { open: boolean; onClose: () => void; editing?: boolean }) {
  const dialog = useModal(props.open);
  return (
    <dialog ref={dialog} class={props.editing ? 'help editing' : 'help'} aria-labelledby="help-title" onClose={props.onClose}>
      <h2 id="help-title">Keyboard shortcuts</h2>
      {props.editing ? (
        <div class="help-sections">
          <section aria-labelledby="help-viewing">
            <h3 id="help-viewing">Viewing</h3>
            <Shortcuts list={SHORTCUTS} />
          </section>
          <section aria-labelledby="help-editing">
            <h3 id="help-editing">Editing</h3>
            <Shortcuts list={EDITING_SHORTCUTS} />
          </section>
        </div>
      ) : (
        <Shortcuts list={SHORTCUTS} />
      )}
      <button type="button" onClick={props.onClose}>
        Close
      </button>
    </dialog>
  );
}
