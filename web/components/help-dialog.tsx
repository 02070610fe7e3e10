// The list of keyboard shortcuts, opened with `?`.
import { useEffect, useRef } from 'preact/hooks';

export const SHORTCUTS: [string, string][] = [
  ['← or D', 'previous image'],
  ['→ or F', 'next image'],
  ['+ / −', 'zoom in / out at the centre'],
  ['0', 'fit the image to the screen'],
  ['?', 'show these shortcuts'],
  ['Esc', 'close this list'],
];

export function HelpDialog(props: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current!;
    if (props.open && !element.open) element.showModal();
    if (!props.open && element.open) element.close();
  }, [props.open]);
  return (
    <dialog ref={dialog} class="help" aria-labelledby="help-title" onClose={props.onClose}>
      <h2 id="help-title">Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <button type="button" onClick={props.onClose}>
        Close
      </button>
    </dialog>
  );
}
