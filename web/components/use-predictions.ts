// The image's predictions as the image view shows them: one model at a time, those at or above the
// score threshold, less those accepted into the annotation. Accepting adds the predictions to the
// edited annotation as one edit (one step to undo); undone, they show as predictions again, since a
// prediction counts as accepted only while the object it became is in the document (or one of its
// class and geometry is: accepted and saved before). Rejecting one
// removes it from the model's predictions on the server.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type ImagePredictions, type Prediction, getPredictions, putPredictions } from '../api.ts';
import { addObject } from '../editor/document.ts';
import type { Shape } from '../editor/geometry.ts';
import type { AnnotationEditor } from './use-annotation-editor.ts';

export const DEFAULT_THRESHOLD = 0.5;

const sameShape = (o: { classTitle: string; points: unknown; bitmap: { data: string } | null }) => `${o.classTitle}\n${JSON.stringify(o.points)}\n${o.bitmap?.data ?? ''}`;

export function usePredictions(imageId: number, editor: AnnotationEditor, shapeOf: (title: string) => Shape | undefined) {
  const [loaded, setLoaded] = useState<ImagePredictions | null>(null);
  const [model, setModel] = useState<string | null>(null);
  const [threshold, setThreshold] = useState(DEFAULT_THRESHOLD);
  const [busy, setBusy] = useState(false);
  const [focused, setFocused] = useState<number | null>(null);
  // `${model}\n${index}` → the key of the object the prediction became.
  const [accepted, setAccepted] = useState<Map<string, number>>(new Map());

  useEffect(() => {
    let live = true;
    getPredictions(imageId).then(
      (answer) => {
        if (!live) return;
        setLoaded(answer);
        setModel((now) => now ?? answer.models[0]?.model ?? null);
      },
      () => undefined,
    );
    return () => void (live = false);
  }, [imageId]);

  const current = loaded?.models.find((m) => m.model === model) ?? null;
  const keys = useMemo(() => new Set(editor.doc.objects.map((o) => o.key)), [editor.doc]);
  // An object of the annotation with the class and geometry of a prediction: accepted and saved before.
  const shapes = useMemo(() => new Set(editor.doc.objects.map((o) => sameShape(o))), [editor.doc]);
  const isAccepted = (p: Prediction) => {
    const key = accepted.get(`${model}\n${p.index}`);
    return (key !== undefined && keys.has(key)) || shapes.has(sameShape(p));
  };
  const shown = (current?.objects ?? []).filter((p) => p.score >= threshold - 1e-9 && !isAccepted(p));

  const accept = (predictions: readonly Prediction[]) => {
    if (predictions.length === 0 || model === null) return;
    const first = editor.doc.nextKey;
    editor.edit((doc) =>
      predictions.reduce(
        (d, p) => addObject(d, shapeOf(p.classTitle) ?? (p.geometryType as Shape), { classTitle: p.classTitle, description: '', tags: [], tagValues: {}, bitmap: p.bitmap, points: p.points }),
        doc,
      ),
    );
    setAccepted((before) => {
      const after = new Map(before);
      predictions.forEach((p, i) => after.set(`${model}\n${p.index}`, first + i));
      return after;
    });
  };

  const reject = async (prediction: Prediction) => {
    if (!current) return;
    setBusy(true);
    try {
      const rest = current.objects.filter((p) => p.index !== prediction.index);
      const stored = await putPredictions(imageId, current.model, rest);
      setLoaded((before) => before && { ...before, models: before.models.map((m) => (m.model === stored.model ? stored : m)) });
      // The list is stored again highest score first: the indices after the rejected one move up.
      setAccepted((before) => {
        const after = new Map<string, number>();
        for (const [name, key] of before) {
          const [m, index] = name.split('\n') as [string, string];
          const i = Number(index);
          if (m !== current.model) after.set(name, key);
          else if (i !== prediction.index) after.set(`${m}\n${i > prediction.index ? i - 1 : i}`, key);
        }
        return after;
      });
    } catch {
      editor.setNotice({ text: 'Not done: the prediction could not be rejected.', error: true });
    } finally {
      setBusy(false);
    }
  };

  return { models: loaded?.models ?? [], model, setModel, threshold, setThreshold, shown, busy, accept, reject: (p: Prediction) => void reject(p), focused, setFocused };
}
