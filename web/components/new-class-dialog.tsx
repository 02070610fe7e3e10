// Offered by the editor when a tool needs a class of a shape the project lacks (a VOC project has only
// rectangles; its Polygon tool would otherwise stay out of reach): the class is created on the spot.
import type { ImageClass } from '../api.ts';
import { NewClassForm } from './new-class-form.tsx';
import { useModal } from './use-modal.ts';
import '../schema.css';

interface Props {
  /** The shape asked for; null: the dialog is closed. */
  shape: ImageClass['shape'] | null;
  tool: string;
  projectId: number;
  classes: ImageClass[];
  /** Creating a class is the project's managers': anyone else is told so. */
  mayCreate: boolean;
  onCreated: (created: ImageClass) => void;
  onClose: () => void;
}

export function NewClassDialog(props: Props) {
  const dialog = useModal(props.shape !== null);
  return (
    <dialog ref={dialog} class="class-dialog" aria-labelledby="class-dialog-title" onClose={props.onClose}>
      {props.shape && (
        <>
          <h2 id="class-dialog-title">New {props.shape} class</h2>
          {props.mayCreate ? (
            <>
              <p>
                The {props.tool} tool draws objects of a {props.shape} class, and this project has none yet. Create one (it is added to the project for everyone):
              </p>
              <NewClassForm key={props.shape} projectId={props.projectId} classes={props.classes} shape={props.shape} idPrefix="editor-class" onCreated={props.onCreated} onCancel={props.onClose} />
            </>
          ) : (
            <>
              <p>The {props.tool} tool draws objects of a {props.shape} class, and this project has none yet. Only a manager of the project adds classes: ask one.</p>
              <button type="button" onClick={props.onClose}>
                Close
              </button>
            </>
          )}
        </>
      )}
    </dialog>
  );
}
