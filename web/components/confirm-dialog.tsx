// Asks before something is removed, saying what goes with it. A project is removed only once its
// title has been typed: a click alone cannot take thousands of images.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { useModal } from './use-modal.ts';

interface Props {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** When set, the confirm button waits until this text is typed. */
  typeToConfirm?: string;
  busy?: boolean;
  error?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog(props: Props) {
  const dialog = useModal(props.open);
  const [typed, setTyped] = useState('');
  // Several of these may be on one page: each names itself by its own heading.
  const titleId = useId();
  useEffect(() => setTyped(''), [props.open]);
  const ready = props.typeToConfirm === undefined || typed === props.typeToConfirm;
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby={titleId} onClose={props.onCancel}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          if (ready && !props.busy) props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        <div class="confirm-body">{props.children}</div>
        {props.typeToConfirm !== undefined && (
          <label class="confirm-type">
            <span>
              Type <strong>{props.typeToConfirm}</strong> to confirm
            </span>
            <input value={typed} onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)} autoComplete="off" spellcheck={false} />
          </label>
        )}
        {props.error && (
          <p class="error" role="alert">
            {props.error}
          </p>
        )}
        <div class="confirm-actions">
          <button type="button" class="quiet" onClick={props.onCancel}>
            Cancel
          </button>
          <button type="submit" class="danger" disabled={!ready || props.busy}>
            {props.busy ? 'Deleting…' : props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
