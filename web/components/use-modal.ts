// A <dialog> shown as a modal while `open` is true: showModal() gives it the focus trap, Escape and the
// backdrop the platform provides, which a <div> would have to imitate.
import { type RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function useModal(open: boolean): RefObject<HTMLDialogElement | null> {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current!;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return dialog;
}
