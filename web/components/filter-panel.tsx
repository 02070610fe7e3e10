// The gallery's combined filters, in the sidebar: classes and tags each any / all / none with their
// image counts, a tag's value, the object count range, box size bounds, several datasets at once.
// Every control writes the URL parameters of GET /v2/images (classAny, tagNone, minObjects, …), so the
// view is shared by its address. Folded on a narrow screen, open on a wide one.
import { useEffect, useState } from 'preact/hooks';
import type { CombinedFilter, Dataset, ImageClass, ImageFilter, Tag } from '../api.ts';

type Mode = 'Any' | 'All' | 'None';
const MODES: Mode[] = ['Any', 'All', 'None'];
type ListKey = 'classAny' | 'classAll' | 'classNone' | 'tagAny' | 'tagAll' | 'tagNone';

interface Props {
  filter: ImageFilter;
  classes: ImageClass[];
  tags: Tag[];
  datasets: Dataset[];
  /** Images per class and per tag, when counted. */
  classCounts: Map<number, number> | undefined;
  tagCounts: Map<number, number> | undefined;
  onChange: (next: Partial<ImageFilter>) => void;
}

/** How many combined filters are set. */
export function combinedCount(filter: CombinedFilter): number {
  const lists = (['datasetIds', 'classAny', 'classAll', 'classNone', 'tagAny', 'tagAll', 'tagNone', 'tagValue'] as const).reduce((n, key) => n + (filter[key]?.length ?? 0), 0);
  const counts = (['minObjects', 'maxObjects', 'boxMinSide', 'boxMaxSide', 'boxMinArea', 'boxMaxArea'] as const).filter((key) => filter[key] !== undefined).length;
  return lists + counts;
}

const NONE: Partial<ImageFilter> = {
  datasetIds: undefined,
  classAny: undefined,
  classAll: undefined,
  classNone: undefined,
  tagAny: undefined,
  tagAll: undefined,
  tagNone: undefined,
  tagValue: undefined,
  minObjects: undefined,
  maxObjects: undefined,
  boxClassId: undefined,
  boxMinSide: undefined,
  boxMaxSide: undefined,
  boxMinArea: undefined,
  boxMaxArea: undefined,
};

export function FilterPanel(props: Props) {
  const { filter } = props;
  const [open, setOpen] = useState(() => typeof matchMedia !== 'function' || !matchMedia('(max-width: 760px)').matches);
  const format = (n: number | undefined) => (n === undefined ? '…' : n.toLocaleString('en'));
  const active = combinedCount(filter);

  /** The id moved to the list of `mode` (of classes or tags), or out of every list when it is there already. */
  const toggle = (kind: 'class' | 'tag', id: number, mode: Mode) => {
    const key = `${kind}${mode}` as ListKey;
    const was = filter[key]?.includes(id) ?? false;
    const next: Partial<ImageFilter> = {};
    for (const m of MODES) {
      const k = `${kind}${m}` as ListKey;
      const list = (filter[k] ?? []).filter((x) => x !== id);
      if (k === key && !was) list.push(id);
      next[k] = list.length ? list : undefined;
    }
    props.onChange(next);
  };
  const modeOf = (kind: 'class' | 'tag', id: number): Mode | undefined => MODES.find((m) => filter[`${kind}${m}` as ListKey]?.includes(id));

  const row = (kind: 'class' | 'tag', id: number, title: string, count: number | undefined, swatch?: string) => {
    const mode = modeOf(kind, id);
    return (
      <li key={id} class="combine-row">
        <span class="combine-title" title={title}>
          {swatch && <span class="swatch" style={{ background: swatch }} aria-hidden="true" />}
          {title}
        </span>
        <span class="facet-count">{format(count)}</span>
        <span class="modes" role="group" aria-label={`${title}: images with any, all or none`}>
          {MODES.map((m) => (
            <button key={m} type="button" class="mode" aria-pressed={mode === m} aria-label={`${m}: ${title}`} onClick={() => toggle(kind, id, m)}>
              {m}
            </button>
          ))}
        </span>
      </li>
    );
  };

  const datasetIds = filter.datasetIds ?? [];
  const toggleDataset = (id: number) => {
    const list = datasetIds.includes(id) ? datasetIds.filter((x) => x !== id) : [...datasetIds, id];
    props.onChange({ datasetIds: list.length ? list : undefined, datasetId: undefined });
  };
  const valued = props.tags.filter((t) => t.valueType !== 'none');

  return (
    <details class="filter-panel" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        <h2>Combine filters{active > 0 ? ` (${active})` : ''}</h2>
      </summary>
      {active > 0 && (
        <button type="button" class="quiet clear-filters" onClick={() => props.onChange(NONE)}>
          Clear these filters
        </button>
      )}
      <fieldset>
        <legend>Classes</legend>
        {props.classes.length === 0 ? <p class="quiet-text">No classes</p> : <ul class="combine">{props.classes.map((c) => row('class', c.id, c.title, props.classCounts?.get(c.id), c.color))}</ul>}
      </fieldset>
      <fieldset>
        <legend>Image tags</legend>
        {props.tags.length === 0 ? <p class="quiet-text">No image tags</p> : <ul class="combine">{props.tags.map((t) => row('tag', t.id, t.title, props.tagCounts?.get(t.id)))}</ul>}
        {valued.map((t) => (
          <TagValue key={t.id} tag={t} filter={filter} onChange={props.onChange} />
        ))}
      </fieldset>
      <fieldset class="range">
        <legend>Objects per image</legend>
        <NumberField label="At least" value={filter.minObjects} onChange={(minObjects) => props.onChange({ minObjects })} />
        <NumberField label="At most" value={filter.maxObjects} onChange={(maxObjects) => props.onChange({ maxObjects })} />
      </fieldset>
      <fieldset class="range">
        <legend>Box size, S in px</legend>
        <NumberField label="Box under S × S" value={filter.boxMaxSide} onChange={(boxMaxSide) => props.onChange({ boxMaxSide })} />
        <NumberField label="Box over S × S" value={filter.boxMinSide} onChange={(boxMinSide) => props.onChange({ boxMinSide })} />
        <label>
          Of class{' '}
          <select value={filter.boxClassId ? String(filter.boxClassId) : ''} onChange={(e) => props.onChange({ boxClassId: Number((e.currentTarget as HTMLSelectElement).value) || undefined })}>
            <option value="">any class</option>
            {props.classes.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.title}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      <fieldset>
        <legend>Datasets, any of</legend>
        <ul class="combine">
          {props.datasets.map((d) => (
            <li key={d.id}>
              <label class="dataset-choice">
                <input type="checkbox" checked={datasetIds.includes(d.id)} onChange={() => toggleDataset(d.id)} /> <span class="combine-title">{d.title}</span>
                <span class="facet-count">{format(d.counts?.images)}</span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
    </details>
  );
}

/** A whole number, written to the URL when the field is left or Enter is pressed; empty clears it. */
function NumberField(props: { label: string; value: number | undefined; onChange: (value: number | undefined) => void }) {
  const [text, setText] = useState(props.value === undefined ? '' : String(props.value));
  useEffect(() => setText(props.value === undefined ? '' : String(props.value)), [props.value]);
  const commit = () => {
    const n = text.trim() === '' ? undefined : Number(text);
    if (n === undefined || (Number.isSafeInteger(n) && n >= 0 && n <= 2_147_483_647)) {
      if (n !== props.value) props.onChange(n);
    } else setText(props.value === undefined ? '' : String(props.value));
  };
  return (
    <label>
      {props.label}{' '}
      <input
        type="number"
        min={0}
        step={1}
        inputMode="numeric"
        value={text}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        onChange={commit}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
      />
    </label>
  );
}

/** A value of one tag (images whose tag holds it): one of its values, or any text. */
function TagValue(props: { tag: Tag; filter: ImageFilter; onChange: (next: Partial<ImageFilter>) => void }) {
  const prefix = `${props.tag.id}:`;
  const current = props.filter.tagValue?.find((v) => v.startsWith(prefix))?.slice(prefix.length) ?? '';
  const set = (value: string) => {
    const others = (props.filter.tagValue ?? []).filter((v) => !v.startsWith(prefix));
    const list = value ? [...others, `${prefix}${value.replaceAll(',', ' ')}`] : others;
    props.onChange({ tagValue: list.length ? list : undefined });
  };
  const options = props.tag.values ?? [];
  return (
    <label class="tag-value">
      {props.tag.title} ={' '}
      {options.length > 0 ? (
        <select value={current} onChange={(e) => set((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">any value</option>
          {options.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      ) : (
        <input type="text" value={current} maxLength={1000} onChange={(e) => set((e.currentTarget as HTMLInputElement).value.trim())} />
      )}
    </label>
  );
}
