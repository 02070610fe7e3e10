// The editor's tools, the class new objects get, the brush size, undo, redo and save, with the state
// of the annotation (unsaved changes, saved, why not).
import type { ImageClass, SegmentModelChoice } from '../api.ts';
import type { Tool } from './editor-overlay.tsx';
import type { Notice } from './use-annotation-editor.ts';

/** Each tool, its key and the class shape it draws (none: it edits what is there). */
export const TOOLS: { tool: Tool; label: string; key: string; shape?: string }[] = [
  { tool: 'select', label: 'Select', key: 'V' },
  { tool: 'rectangle', label: 'Rectangle', key: 'R', shape: 'rectangle' },
  { tool: 'polygon', label: 'Polygon', key: 'P', shape: 'polygon' },
  { tool: 'line', label: 'Line', key: 'L', shape: 'line' },
  { tool: 'point', label: 'Point', key: 'O', shape: 'point' },
  { tool: 'brush', label: 'Brush', key: 'B', shape: 'bitmap' },
  { tool: 'eraser', label: 'Eraser', key: 'E', shape: 'bitmap' },
  { tool: 'hole', label: 'Hole', key: 'H' },
  // Makes a polygon or a bitmap, by the class chosen: no one shape of its own.
  { tool: 'segment', label: 'Segment', key: 'S' },
];

interface Props {
  tool: Tool;
  onTool: (tool: Tool) => void;
  classes: ImageClass[];
  classTitle: string | null;
  onClass: (title: string) => void;
  brushRadius: number;
  onBrushRadius: (radius: number) => void;
  /** The segment tool's polygon simplification, in image pixels. */
  tolerance: number;
  onTolerance: (tolerance: number) => void;
  /** The segment tool's models (shown when there is a choice) and the one chosen (null: the default). */
  segmentModels: SegmentModelChoice[];
  segmentModel: string | null;
  onSegmentModel: (model: string | null) => void;
  canUndo: boolean;
  canRedo: boolean;
  onUndo: () => void;
  onRedo: () => void;
  dirty: boolean;
  saving: boolean;
  onSave: () => void;
  notice: Notice | null;
  /** A tool whose shape no class has was chosen: offer to create such a class. */
  onMissingShape?: (shape: ImageClass['shape'], tool: string) => void;
}

export function EditorToolbar(props: Props) {
  const shapes = new Set(props.classes.map((c) => c.shape));
  return (
    <div class="editor-toolbar" role="toolbar" aria-label="Editing tools">
      <div class="tools">
        {TOOLS.map((t) => {
          const missing = t.shape !== undefined && !shapes.has(t.shape as ImageClass['shape']);
          const offer = missing && props.onMissingShape !== undefined;
          return (
            <button
              key={t.tool}
              type="button"
              class={offer ? 'tool needs-class' : 'tool'}
              aria-pressed={props.tool === t.tool}
              aria-keyshortcuts={t.key}
              title={offer ? `${t.label} (${t.key}): the project has no ${t.shape} class yet; create one` : `${t.label} (${t.key})`}
              disabled={missing && !offer}
              onClick={() => (offer ? props.onMissingShape!(t.shape as ImageClass['shape'], t.label) : props.onTool(t.tool))}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      <label class="class-picker">
        Class
        <select value={props.classTitle ?? ''} onChange={(e) => props.onClass((e.currentTarget as HTMLSelectElement).value)}>
          {props.classes.map((c, i) => (
            <option key={c.id} value={c.title}>
              {i < 9 ? `${i + 1} · ` : ''}
              {c.title} ({c.shape})
            </option>
          ))}
        </select>
      </label>
      {props.tool === 'segment' && props.segmentModels.length > 1 && (
        <label class="class-picker" title="The Segment Anything-class model the segment tool runs">
          Model
          <select
            value={props.segmentModel ?? props.segmentModels.find((m) => m.default)?.model ?? ''}
            onChange={(e) => {
              const value = (e.currentTarget as HTMLSelectElement).value;
              props.onSegmentModel(props.segmentModels.find((m) => m.model === value)?.default ? null : value);
            }}
          >
            {props.segmentModels.map((m) => (
              <option key={m.model} value={m.model}>
                {m.title}
                {m.default ? ' (default)' : ''}
              </option>
            ))}
          </select>
        </label>
      )}
      {/* Always there (the layout does not jump when the tool changes): the brush's size, or the segment tool's tolerance. */}
      {props.tool === 'segment' ? (
        <label class="brush-size" title="How far (image pixels) a polygon made from the mask may stray from its outline: more is fewer points">
          Tolerance
          <input
            type="number"
            min={0}
            max={20}
            step={0.5}
            value={props.tolerance}
            onInput={(e) => props.onTolerance(Math.min(20, Math.max(0, Number((e.currentTarget as HTMLInputElement).value) || 0)))}
          />
        </label>
      ) : (
        <label class="brush-size" title="Brush radius in image pixels ([ and ])">
          Size
          <input
            type="number"
            min={1}
            max={200}
            value={props.brushRadius}
            disabled={props.tool !== 'brush' && props.tool !== 'eraser'}
            onInput={(e) => props.onBrushRadius(Math.min(200, Math.max(1, Number((e.currentTarget as HTMLInputElement).value) || 1)))}
          />
        </label>
      )}
      <div class="history">
        <button type="button" onClick={props.onUndo} disabled={!props.canUndo} aria-keyshortcuts="Control+Z" title="Undo (Ctrl+Z)">
          Undo
        </button>
        <button type="button" onClick={props.onRedo} disabled={!props.canRedo} aria-keyshortcuts="Control+Shift+Z Control+Y" title="Redo (Ctrl+Shift+Z)">
          Redo
        </button>
        <button type="button" class="save" onClick={props.onSave} disabled={props.saving} aria-keyshortcuts="Control+S" title="Save (Ctrl+S)">
          {props.saving ? 'Saving…' : 'Save'}
        </button>
      </div>
      {/* One line, so the stage below never moves; the whole text is in its title. */}
      <p class={`save-state${props.notice?.error ? ' error' : ''}`} role={props.notice?.error ? 'alert' : 'status'} title={props.notice?.text}>
        {props.notice?.text ?? (props.dirty ? 'Unsaved changes' : '')}
      </p>
    </div>
  );
}
