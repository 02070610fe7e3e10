// The options of an export, as POST /v2/exports takes them (docs/exports.md): those every format
// takes, then only the chosen format's own. The class subset is a checklist of the project's classes.
import type { ExportFormat } from '../api.ts';

export interface ExportChoices {
  includeImages: boolean;
  onlyAnnotated: boolean;
  /** The class titles left out (an empty set: every class, and `classes` is not sent). */
  leftOut: Set<string>;
  task: 'detect' | 'segment';
  splitsFromDatasets: boolean;
  segmentation: boolean;
  machine: boolean;
  human: boolean;
  layout: 'current' | '2018';
}

export const DEFAULT_CHOICES: ExportChoices = {
  includeImages: true,
  onlyAnnotated: false,
  leftOut: new Set(),
  task: 'detect',
  splitsFromDatasets: false,
  segmentation: false,
  machine: true,
  human: true,
  layout: 'current',
};

type OwnOption = 'task' | 'splitsFromDatasets' | 'segmentation' | 'machine' | 'human' | 'layout';

/** Each format's own options, as the server's export-request.ts has them. */
const FORMAT_OPTIONS: Record<ExportFormat, readonly OwnOption[]> = {
  supervisely: ['layout'],
  coco: [],
  yolo: ['task', 'splitsFromDatasets'],
  pascal_voc: ['segmentation'],
  masks: ['machine', 'human', 'layout'],
};

/** The `options` of the request: the common ones, the format's own, and `classes` when some are left out. */
export function requestOptions(format: ExportFormat, choices: ExportChoices, classTitles: string[]): Record<string, unknown> {
  const options: Record<string, unknown> = { includeImages: choices.includeImages, onlyAnnotated: choices.onlyAnnotated };
  if (choices.leftOut.size > 0) options.classes = classTitles.filter((title) => !choices.leftOut.has(title));
  for (const name of FORMAT_OPTIONS[format]) options[name] = choices[name];
  return options;
}

interface Props {
  format: ExportFormat;
  choices: ExportChoices;
  onChange: (next: ExportChoices) => void;
  classTitles: string[];
  disabled: boolean;
}

function Check(props: { label: string; checked: boolean; disabled: boolean; onChange: (checked: boolean) => void; hint?: string }) {
  return (
    <label class="check">
      <input type="checkbox" checked={props.checked} disabled={props.disabled} onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)} />
      <span>
        {props.label}
        {props.hint && <small class="hint">{props.hint}</small>}
      </span>
    </label>
  );
}

function ClassList(props: Props) {
  const { choices, onChange, classTitles, disabled } = props;
  if (classTitles.length === 0) return null;
  const kept = classTitles.length - choices.leftOut.size;
  const toggle = (title: string, checked: boolean) => {
    const leftOut = new Set(choices.leftOut);
    if (checked) leftOut.delete(title);
    else leftOut.add(title);
    onChange({ ...choices, leftOut });
  };
  return (
    <fieldset class="export-classes">
      <legend>
        Classes <span class="hint">({kept === classTitles.length ? 'all' : `${kept} of ${classTitles.length}`})</span>
      </legend>
      <div class="export-class-actions">
        <button type="button" class="quiet" disabled={disabled || kept === classTitles.length} onClick={() => onChange({ ...choices, leftOut: new Set() })}>
          All
        </button>
        <button type="button" class="quiet" disabled={disabled || kept === 0} onClick={() => onChange({ ...choices, leftOut: new Set(classTitles) })}>
          None
        </button>
      </div>
      <div class="export-class-list">
        {classTitles.map((title) => (
          <Check key={title} label={title} checked={!choices.leftOut.has(title)} disabled={disabled} onChange={(checked) => toggle(title, checked)} />
        ))}
      </div>
      {kept === 0 && <p class="hint">No class: the archive holds no objects.</p>}
    </fieldset>
  );
}

/** The options of `format`: the shared ones, the format's own, and the class checklist. */
export function ExportOptions(props: Props) {
  const { format, choices, onChange, disabled } = props;
  const own = FORMAT_OPTIONS[format];
  const set = <K extends keyof ExportChoices>(name: K, value: ExportChoices[K]) => onChange({ ...choices, [name]: value });
  return (
    <div class="export-options">
      <Check label="With the image files" checked={choices.includeImages} disabled={disabled} onChange={(v) => set('includeImages', v)} />
      <Check label="Only annotated images" checked={choices.onlyAnnotated} disabled={disabled} onChange={(v) => set('onlyAnnotated', v)} />
      {own.includes('task') && (
        <>
          <label for="export-task">YOLO task</label>
          <select id="export-task" value={choices.task} disabled={disabled} onChange={(e) => set('task', (e.currentTarget as HTMLSelectElement).value as ExportChoices['task'])}>
            <option value="detect">Detect (boxes)</option>
            <option value="segment">Segment (polygons)</option>
          </select>
        </>
      )}
      {own.includes('splitsFromDatasets') && (
        <Check label="Datasets as splits" hint="a split per dataset, by its name" checked={choices.splitsFromDatasets} disabled={disabled} onChange={(v) => set('splitsFromDatasets', v)} />
      )}
      {own.includes('segmentation') && (
        <Check label="Segmentation masks" hint="SegmentationClass/, SegmentationObject/" checked={choices.segmentation} disabled={disabled} onChange={(v) => set('segmentation', v)} />
      )}
      {own.includes('machine') && <Check label="Machine masks" hint="masks_machine/" checked={choices.machine} disabled={disabled} onChange={(v) => set('machine', v)} />}
      {own.includes('human') && <Check label="Human masks" hint="masks_human/" checked={choices.human} disabled={disabled} onChange={(v) => set('human', v)} />}
      {own.includes('layout') && (
        <>
          <label for="export-layout">Layout</label>
          <select id="export-layout" value={choices.layout} disabled={disabled} onChange={(e) => set('layout', (e.currentTarget as HTMLSelectElement).value as ExportChoices['layout'])}>
            <option value="current">Current</option>
            <option value="2018">2018 (older SDK)</option>
          </select>
        </>
      )}
      <ClassList {...props} />
    </div>
  );
}
