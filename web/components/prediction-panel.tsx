// The predictions of a model for the image: a score threshold, and each prediction above it to accept
// into the annotation or to reject (removed from the model's predictions on the server).
import type { ImageClass, ModelPredictions, Prediction } from '../api.ts';

export interface PredictionPanelProps {
  models: readonly ModelPredictions[];
  model: string;
  onModel: (model: string) => void;
  threshold: number;
  onThreshold: (threshold: number) => void;
  /** The model's predictions above the threshold that are not accepted yet. */
  shown: readonly Prediction[];
  classes: Map<string, ImageClass>;
  canWrite: boolean;
  /** Rejecting stores the model's predictions again: a manager's. */
  canReject: boolean;
  busy: boolean;
  onAccept: (predictions: readonly Prediction[]) => void;
  onReject: (prediction: Prediction) => void;
  focused: number | null;
  onFocus: (index: number | null) => void;
}

export function PredictionPanel(props: PredictionPanelProps) {
  const { shown } = props;
  return (
    <section class="prediction-panel" aria-labelledby="predictions-title">
      <h2 id="predictions-title">Predictions ({shown.length})</h2>
      {props.models.length > 1 ? (
        <label class="field">
          Model
          <select value={props.model} onChange={(e) => props.onModel((e.currentTarget as HTMLSelectElement).value)}>
            {props.models.map((m) => (
              <option key={m.model} value={m.model}>
                {m.model}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <p class="prediction-model">
          Model <strong>{props.model}</strong>
        </p>
      )}
      <label class="field threshold">
        <span>
          Score at least <output>{props.threshold.toFixed(2)}</output>
        </span>
        <input
          type="range"
          min={0}
          max={1}
          step={0.05}
          value={props.threshold}
          aria-label="Score threshold"
          onInput={(e) => props.onThreshold(Number((e.currentTarget as HTMLInputElement).value))}
        />
      </label>
      {props.canWrite && (
        <button type="button" onClick={() => props.onAccept(shown)} disabled={shown.length === 0 || props.busy}>
          Accept all {shown.length}
        </button>
      )}
      <ul class="prediction-list">
        {shown.map((p) => (
          <li key={p.index} onMouseEnter={() => props.onFocus(p.index)} onMouseLeave={() => props.onFocus(null)} class={props.focused === p.index ? 'focused' : undefined}>
            <span class="swatch" style={{ background: props.classes.get(p.classTitle)?.color ?? '#888' }} aria-hidden="true" />
            <span class="prediction-title">{p.classTitle}</span>
            <span class="score">{p.score.toFixed(2)}</span>
            {props.canWrite && (
              <span class="prediction-actions">
                <button type="button" onClick={() => props.onAccept([p])} disabled={props.busy} aria-label={`Accept ${p.classTitle} ${p.score.toFixed(2)}`}>
                  Accept
                </button>
                {props.canReject && (
                  <button type="button" onClick={() => props.onReject(p)} disabled={props.busy} aria-label={`Reject ${p.classTitle} ${p.score.toFixed(2)}`}>
                    Reject
                  </button>
                )}
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
