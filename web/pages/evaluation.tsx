// A model's evaluation against a project's annotations: COCO AP figures, the precision–recall curve
// (an SVG and the same points as a table), AP per class, and the images it got most wrong first,
// each a link to its image view. The model and the IoU type live in the URL.
import { useEffect, useState } from 'preact/hooks';
import { type Evaluation, type Project, type ProjectModel, type Session, getEvaluation, getProject, listPredictionModels } from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';
import { type Location, navigate } from '../router.ts';

interface Props {
  session: Session;
  onSignOut: () => void;
  location: Location;
  projectId: number;
}

const figure = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));

/** The curve at IoU .5 and .75 over recall, in a 0..1 square drawn 320 × 240. */
function Curve(props: { evaluation: Evaluation }) {
  const { recall, precision50, precision75 } = props.evaluation.curve;
  const [w, h, pad] = [320, 240, 32];
  const line = (values: (number | null)[]) =>
    recall
      .map((r, i) => [r, values[i]] as const)
      .filter(([, p]) => p !== null)
      .map(([r, p], i) => `${i === 0 ? 'M' : 'L'}${(pad + r * (w - pad - 8)).toFixed(1)} ${(h - pad - (p ?? 0) * (h - pad - 8)).toFixed(1)}`)
      .join(' ');
  return (
    <svg class="pr-curve" viewBox={`0 0 ${w} ${h}`} role="img" aria-label="Precision against recall at IoU 0.50 and 0.75">
      <rect x={pad} y={8} width={w - pad - 8} height={h - pad - 8} fill="none" stroke="currentColor" stroke-opacity="0.3" />
      <text x={w / 2} y={h - 6} text-anchor="middle" font-size="12">recall</text>
      <text x={12} y={h / 2} text-anchor="middle" font-size="12" transform={`rotate(-90 12 ${h / 2})`}>precision</text>
      <path d={line(precision50)} fill="none" stroke="#1e63c4" stroke-width="2" />
      <path d={line(precision75)} fill="none" stroke="#c43a1e" stroke-width="2" stroke-dasharray="5 3" />
    </svg>
  );
}

export function EvaluationPage(props: Props) {
  const model = props.location.params.get('model') ?? '';
  const iouType = props.location.params.get('iouType') === 'segm' ? 'segm' : 'bbox';
  const [project, setProject] = useState<Project | null>(null);
  const [evaluation, setEvaluation] = useState<Evaluation | null>(null);
  const [error, setError] = useState('');
  const [models, setModels] = useState<ProjectModel[] | null>(null);

  useEffect(() => {
    listPredictionModels(props.projectId).then(setModels, (failure: Error) => setError(failure.message));
  }, [props.projectId]);
  useEffect(() => {
    getProject(props.projectId).then((p) => {
      document.title = `Evaluation · ${p.title} · Annostore`;
      setProject(p);
    }, (failure: Error) => setError(failure.message));
  }, [props.projectId]);
  useEffect(() => {
    if (!model) return;
    setEvaluation(null);
    getEvaluation(props.projectId, { model, iouType }).then(setEvaluation, (failure: Error) => setError(failure.message));
  }, [props.projectId, model, iouType]);

  const e = evaluation;
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[...(project ? [{ label: project.title, href: `/projects/${project.id}/images` }] : []), { label: 'Evaluation' }]} />
      <main class="page evaluation-page">
        <h1>
          Evaluation of {model || 'a model'} ({iouType === 'segm' ? 'masks' : 'boxes'})
        </h1>
        <EvaluationChoice
          models={models}
          model={model}
          iouType={iouType}
          onChange={(next) => navigate(`/projects/${props.projectId}/evaluation?${new URLSearchParams(next).toString()}`)}
        />
        {models?.length === 0 && <p>This project has no predictions yet: import a model's output or PUT them (docs/predictions.md).</p>}
        {error && <p role="alert">{error}</p>}
        {model && !e && !error && <p role="status">Evaluating…</p>}
        {e && (
          <>
            <dl class="evaluation-figures">
              <dt>AP @[.50:.95]</dt>
              <dd>{figure(e.ap)}</dd>
              <dt>AP50</dt>
              <dd>{figure(e.ap50)}</dd>
              <dt>AP75</dt>
              <dd>{figure(e.ap75)}</dd>
              <dt>AR@100</dt>
              <dd>{figure(e.ar100)}</dd>
              <dt>Images</dt>
              <dd>
                {e.predictedImageCount} of {e.imageCount} with predictions
              </dd>
            </dl>
            <section>
              <h2>Precision and recall</h2>
              <Curve evaluation={e} />
              <p class="legend">Solid: IoU 0.50. Dashed: IoU 0.75. Mean over classes.</p>
              <details>
                <summary>The curve as a table</summary>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Recall</th>
                      <th scope="col">Precision (IoU .50)</th>
                      <th scope="col">Precision (IoU .75)</th>
                    </tr>
                  </thead>
                  <tbody>
                    {e.curve.recall.map((r, i) =>
                      i % 10 === 0 ? (
                        <tr key={i}>
                          <td>{r.toFixed(2)}</td>
                          <td>{figure(e.curve.precision50[i])}</td>
                          <td>{figure(e.curve.precision75[i])}</td>
                        </tr>
                      ) : null,
                    )}
                  </tbody>
                </table>
              </details>
            </section>
            <section>
              <h2>Classes</h2>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Class</th>
                    <th scope="col">Objects</th>
                    <th scope="col">Predictions</th>
                    <th scope="col">AP</th>
                    <th scope="col">AP50</th>
                    <th scope="col">AP75</th>
                  </tr>
                </thead>
                <tbody>
                  {e.classes.map((c) => (
                    <tr key={c.classId}>
                      <th scope="row">{c.title}</th>
                      <td>{c.truths}</td>
                      <td>{c.detections}</td>
                      <td>{figure(c.ap)}</td>
                      <td>{figure(c.ap50)}</td>
                      <td>{figure(c.ap75)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <section>
              <h2>Worst images first</h2>
              {e.worstImages.length === 0 ? (
                <p>No image has a false positive or a missed object at IoU 0.50.</p>
              ) : (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Image</th>
                      <th scope="col">Right</th>
                      <th scope="col">False positives</th>
                      <th scope="col">Missed</th>
                    </tr>
                  </thead>
                  <tbody>
                    {e.worstImages.map((w) => (
                      <tr key={w.imageId}>
                        <th scope="row">
                          <Link href={`/images/${w.imageId}`}>{w.name}</Link>
                        </th>
                        <td>{w.truePositives}</td>
                        <td>{w.falsePositives}</td>
                        <td>{w.falseNegatives}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          </>
        )}
      </main>
    </>
  );
}

/** Which model to evaluate, and on boxes or masks: the page's address follows the choice. */
function EvaluationChoice(props: { models: ProjectModel[] | null; model: string; iouType: 'bbox' | 'segm'; onChange: (next: { model: string; iouType: string }) => void }) {
  if (!props.models?.length) return null;
  const names = props.models.map((m) => m.model);
  return (
    <form class="evaluation-choice" onSubmit={(event) => event.preventDefault()}>
      <label>
        Model{' '}
        <select value={props.model} onChange={(event) => props.onChange({ model: event.currentTarget.value, iouType: props.iouType })}>
          {!names.includes(props.model) && <option value={props.model}>{props.model ? props.model : 'Choose a model'}</option>}
          {props.models.map((m) => (
            <option key={m.model} value={m.model}>
              {m.model} ({m.images} {m.images === 1 ? 'image' : 'images'})
            </option>
          ))}
        </select>
      </label>{' '}
      <label>
        Compare{' '}
        <select value={props.iouType} onChange={(event) => props.onChange({ model: props.model, iouType: event.currentTarget.value })}>
          <option value="bbox">boxes</option>
          <option value="segm">masks</option>
        </select>
      </label>
    </form>
  );
}
