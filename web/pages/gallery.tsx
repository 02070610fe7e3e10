// The images of a project or of one of its datasets: a virtualised grid of thumbnails, a sidebar that
// counts them by dataset, class and tag and filters by any of them (and combines classes, tags, object
// counts, box sizes and datasets: filter-panel.tsx), and a search by name. Each tile
// draws its objects; which classes are drawn (and how strongly) is a view setting, apart from the
// filters. Both the filters and the view are in the URL.
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, type Dataset, type ImageClass, type ImageFilter, type ImageSort, type Project, type Session, type ProjectModel, type Tag, countImages, getDataset, getProject, listClasses, listDatasets, listImageTags, listPredictionModels } from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';
import { NotFoundPage } from './not-found.tsx';
import { BatchBar } from '../components/batch-bar.tsx';
import { ExportForm } from '../components/export-form.tsx';
import { FilterPanel } from '../components/filter-panel.tsx';
import { PastExports } from '../components/past-exports.tsx';
import { SchemaLink } from '../components/schema-link.tsx';
import { VirtualGrid } from '../components/virtual-grid.tsx';
import { DISAGREE_IOUS, filterFromUrl, filterKey, filterParams, filterQuery, narrows, queryOf } from '../filters.ts';
import { forgetImageLists, imageListOf } from '../image-list.ts';
import { placeOf, rememberScroll } from '../gallery-place.ts';
import { type OverlayView, overlayFromUrl, withClassShown, writeOverlay } from '../overlay-view.ts';
import { allows, roleCaption, useProjectRole } from '../project-role.ts';
import { type Location, navigate } from '../router.ts';

interface Catalogue {
  project: Project;
  datasets: Dataset[];
  classes: ImageClass[];
  tags: Tag[];
}

interface Props {
  session: Session;
  onSignOut: () => void;
  location: Location;
  scope: { projectId: number } | { datasetId: number };
}

export function GalleryPage(props: Props) {
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null);
  const [error, setError] = useState('');
  // What the address names and is not there (or not the team's): "This project".
  const [missing, setMissing] = useState('');
  const failed = (what: string) => (failure: Error) => (failure instanceof ApiError && failure.status === 404 ? setMissing(what) : setError(failure.message));

  // /datasets/:id/images is the project's gallery with that dataset chosen.
  useEffect(() => {
    if ('datasetId' in props.scope) {
      const datasetId = props.scope.datasetId;
      getDataset(datasetId).then(
        (dataset) => navigate(`/projects/${dataset.projectId}/images?dataset=${datasetId}`, { replace: true }),
        failed('This dataset'),
      );
    }
  }, [props.scope]);
  const projectId = 'projectId' in props.scope ? props.scope.projectId : null;

  useEffect(() => {
    if (projectId === null) return;
    setCatalogue(null);
    Promise.all([getProject(projectId), listDatasets(projectId), listClasses(projectId), listImageTags(projectId)]).then(
      ([project, datasets, classes, tags]) => {
        document.title = `${project.title} · Annostore`;
        setCatalogue({ project, datasets, classes, tags });
      },
      failed('This project'),
    );
  }, [projectId]);

  const query = props.location.params.toString();
  const filter = useMemo(() => (projectId === null ? null : filterFromUrl(props.location.params, projectId)), [projectId, query]);
  const overlay = useMemo(() => overlayFromUrl(props.location.params), [query]);

  if (missing) return <NotFoundPage session={props.session} onSignOut={props.onSignOut} what={missing} />;
  if (error) {
    return (
      <>
        <Header session={props.session} onSignOut={props.onSignOut} />
        <main>
          <p class="error" role="alert">
            {error}
          </p>
        </main>
      </>
    );
  }
  if (!catalogue || !filter) return <p class="loading" role="status">Loading…</p>;
  // After a batch change the datasets' counts are read again.
  const recount = () => void listDatasets(catalogue.project.id).then((datasets) => setCatalogue((now) => now && { ...now, datasets }), () => undefined);
  return <Gallery {...props} catalogue={catalogue} filter={filter} overlay={overlay} onRecount={recount} />;
}

function Gallery(props: Props & { catalogue: Catalogue; filter: ImageFilter; overlay: OverlayView; onRecount: () => void }) {
  const { project, datasets, classes } = props.catalogue;
  const { filter, overlay } = props;
  const role = useProjectRole(project.id);
  const [generation, setGeneration] = useState(0);
  const list = useMemo(() => imageListOf(filter), [filterKey(filter), generation]);
  // Read once, when the gallery opens: back from an image, it opens where it was left. A filter
  // changed here starts at the top.
  const [place] = useState(() => placeOf(filterKey(filter)));
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const select = (id: number) =>
    setSelected((before) => {
      const after = new Set(before);
      if (!after.delete(id)) after.add(id);
      return after;
    });
  // What the last batch did: it stays (the selection is gone) until dismissed.
  const [batchResult, setBatchResult] = useState('');
  const reread = () => {
    forgetImageLists();
    setSelected(new Set());
    setGeneration((n) => n + 1);
    props.onRecount();
  };
  const colors = useMemo(() => new Map(classes.map((c) => [c.id, c.color])), [classes]);
  const classByTitle = useMemo(() => new Map(classes.map((c) => [c.title, c])), [classes]);
  const hiddenTitles = useMemo(() => new Set(classes.filter((c) => overlay.hiddenClassIds.has(c.id)).map((c) => c.title)), [classes, overlay.hiddenClassIds]);
  // The slider moves the fill at once; the URL takes the value where it is let go.
  const [opacity, setOpacity] = useState(overlay.opacity);
  useEffect(() => setOpacity(overlay.opacity), [overlay.opacity]);
  const [total, setTotal] = useState<number | null>(list.total);
  useEffect(() => {
    setTotal(list.total);
    return list.subscribe(() => setTotal(list.total));
  }, [list]);

  const change = (next: Partial<ImageFilter>) => {
    const merged = { ...filter, ...next };
    if (next.datasetId === undefined && 'datasetId' in next) merged.projectId = project.id;
    if (merged.datasetId) delete merged.projectId;
    navigate(galleryUrl(project.id, merged, overlay), { replace: 'nameContains' in next });
  };
  // A change of view replaces the history entry: Back leaves the view rather than undoing a toggle.
  const view = (next: OverlayView) => navigate(galleryUrl(project.id, filter, next), { replace: true });

  const dataset = datasets.find((d) => d.id === filter.datasetId);
  return (
    <>
      <Header
        session={props.session}
        onSignOut={props.onSignOut}
        trail={[{ label: project.title, href: `/projects/${project.id}/images` }, ...(dataset ? [{ label: dataset.title }] : [])]}
      />
      <div class="gallery">
        <Sidebar {...props.catalogue} filter={filter} onChange={change} overlay={overlay} onView={view} generation={generation} ready={total !== null}>
          <section>
            <h2>Export</h2>
            {allows(role, 'manager') ? (
              <ExportForm projectId={project.id} datasetId={dataset?.id} name={dataset ? dataset.title : project.title} classTitles={props.catalogue.classes.map((c) => c.title)} />
            ) : (
              role !== undefined && <p class="role-note quiet-text">{roleCaption(role, 'its managers make exports; you can download those made.')}</p>
            )}
            <PastExports projectId={project.id} />
          </section>
        </Sidebar>
        <main class="gallery-main">
          <div class="toolbar">
            <h1>
              {dataset ? dataset.title : project.title}
              <span class="total" role="status">
                {total === null ? '' : ` · ${total.toLocaleString('en')} ${total === 1 ? 'image' : 'images'}`}
              </span>
            </h1>
            <div class="controls">
              <label>
                <input type="checkbox" checked={overlay.show} onChange={() => view({ ...overlay, show: !overlay.show })} /> Objects
              </label>
              <label class="opacity">
                Fill
                <input
                  type="range"
                  min={0}
                  max={1}
                  step={0.05}
                  value={opacity}
                  disabled={!overlay.show}
                  onInput={(e) => setOpacity(Number((e.currentTarget as HTMLInputElement).value))}
                  onChange={(e) => view({ ...overlay, opacity: Number((e.currentTarget as HTMLInputElement).value) })}
                />
              </label>
              <NameSearch value={filter.nameContains ?? ''} onChange={(nameContains) => change({ nameContains: nameContains || undefined })} />
              <label class="sort">
                Sort{' '}
                <select value={filter.sort ?? 'id'} onChange={(e) => change({ sort: (e.currentTarget as HTMLSelectElement).value as ImageSort })}>
                  <option value="id">Oldest first</option>
                  <option value="-id">Newest first</option>
                  <option value="name">Name</option>
                  <option value="-objects">Most objects</option>
                  <option value="objects">Fewest objects</option>
                </select>
              </label>
              <Link href={`/projects/${project.id}/stats${filterQuery(filter)}`}>Statistics</Link>
              <Link href={`/projects/${project.id}/near-duplicates`}>Near-duplicates</Link>
              <Link href={`/projects/${project.id}/versions`}>Versions</Link>
              <Link href={`/projects/${project.id}/jobs${filterQuery(filter)}`}>Jobs</Link>
              {allows(role, 'manager') && <Link href={`/projects/${project.id}/quality`}>Quality</Link>}
            </div>
          </div>
          {selected.size > 0 && (
            <BatchBar
              projectId={project.id}
              selected={selected}
              tags={props.catalogue.tags}
              canTag={allows(role, 'annotator')}
              canDelete={allows(role, 'manager')}
              onClear={() => setSelected(new Set())}
              onChanged={(result) => {
                setBatchResult(result);
                reread();
              }}
            />
          )}
          {batchResult && selected.size === 0 && (
            <div class="batch-bar batch-result" role="status">
              <span>{batchResult}</span>
              <button type="button" class="quiet" onClick={() => setBatchResult('')}>
                Dismiss
              </button>
            </div>
          )}
          {selected.size > 0 && role !== undefined && !allows(role, 'annotator') && <p class="role-note quiet-text">{roleCaption(role, 'selected images can be looked at, not changed.')}</p>}
          {total === 0 && <EmptyGallery filter={filter} dataset={dataset !== undefined} mayImport={allows(role, 'manager')} onClear={() => navigate(galleryUrl(project.id, filter.datasetId ? { datasetId: filter.datasetId } : { projectId: project.id }, overlay))} />}
          <VirtualGrid place={place} onScrolled={(top) => rememberScroll(filterKey(filter), top)} list={list} colors={colors} selected={selected} onSelect={select} overlay={overlay.show ? { classes: classByTitle, opacity, hidden: hiddenTitles } : null} hrefOf={(image) => `/images/${image.id}${filterQuery({ ...filter, projectId: project.id }, { withProject: true })}`} />
        </main>
      </div>
    </>
  );
}

/** No image: none chosen by the filters, or none at all yet (which filters would not change). */
function EmptyGallery(props: { filter: ImageFilter; dataset: boolean; mayImport: boolean; onClear: () => void }) {
  if (narrows(props.filter)) {
    return (
      <p class="empty">
        No image matches these filters.{' '}
        <button type="button" class="quiet" onClick={props.onClear}>
          Clear the filters
        </button>
      </p>
    );
  }
  const none = props.dataset ? 'This dataset has no images yet.' : 'This project has no images yet.';
  // Importing into a project is its managers'.
  if (!props.mayImport) return <p class="empty">{none}</p>;
  return (
    <p class="empty">
      {none} Import a folder into it from the <Link href="/">Projects</Link> page, or with{' '}
      <code>annostore import</code>.
    </p>
  );
}

/** The gallery's address: the filters, then the view. */
const galleryUrl = (projectId: number, filter: ImageFilter, overlay: OverlayView): string => `/projects/${projectId}/images${queryOf(writeOverlay(filterParams(filter), overlay))}`;

function NameSearch(props: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(props.value);
  useEffect(() => setText(props.value), [props.value]);
  useEffect(() => {
    if (text === props.value) return;
    const timer = setTimeout(() => props.onChange(text), 300);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <div class="search">
      <label for="name-search">Name contains</label>
      <input id="name-search" type="search" value={text} maxLength={1024} onInput={(event) => setText((event.currentTarget as HTMLInputElement).value)} />
    </div>
  );
}

/**
 * Counts of the images of the project or dataset (and the name searched) by class and by tag, asked
 * once the grid's first page is in (`ready`): a class's count reads every image's objects, seconds at
 * a million images, and the thumbnails come first.
 */
function useFacetCounts(filter: ImageFilter, classes: ImageClass[], tags: Tag[], generation: number, ready: boolean) {
  const [counts, setCounts] = useState<{ classes: Map<number, number>; tags: Map<number, number> } | null>(null);
  const base: ImageFilter = filter.datasetId ? { datasetId: filter.datasetId } : { projectId: filter.projectId };
  if (filter.nameContains) base.nameContains = filter.nameContains;
  const key = filterKey(base);
  useEffect(() => {
    let live = true;
    setCounts(null);
    if (!ready) return;
    void (async () => {
      const classCounts = new Map<number, number>();
      const tagCounts = new Map<number, number>();
      // A few at a time: a project may have many classes.
      const jobs = [...classes.map((c) => async () => classCounts.set(c.id, await countImages({ ...base, classId: c.id }))), ...tags.map((t) => async () => tagCounts.set(t.id, await countImages({ ...base, tagId: t.id })))];
      const workers = Array.from({ length: 4 }, async () => {
        for (let job = jobs.shift(); job && live; job = jobs.shift()) await job();
      });
      await Promise.all(workers);
      if (live) setCounts({ classes: classCounts, tags: tagCounts });
    })().catch(() => undefined);
    return () => void (live = false);
  }, [key, classes, tags, generation, ready]);
  return counts;
}

function Sidebar(
  props: Catalogue & { filter: ImageFilter; onChange: (next: Partial<ImageFilter>) => void; overlay: OverlayView; onView: (next: OverlayView) => void; generation: number; ready: boolean; children: ComponentChildren },
) {
  const { filter, overlay } = props;
  const counts = useFacetCounts(filter, props.classes, props.tags, props.generation, props.ready);
  const format = (n: number | undefined) => (n === undefined ? '…' : n.toLocaleString('en'));
  return (
    <aside class="sidebar" aria-label="Filters">
      <section>
        <h2>Datasets</h2>
        <ul class="facets">
          <li>
            <button type="button" class="facet" aria-pressed={!filter.datasetId} onClick={() => props.onChange({ datasetId: undefined })}>
              <span class="facet-title">All datasets</span>
              <span class="facet-count">{format(props.datasets.reduce((sum, d) => sum + (d.counts?.images ?? 0), 0))}</span>
            </button>
          </li>
          {props.datasets.map((d) => (
            <li key={d.id}>
              <button type="button" class="facet" aria-pressed={filter.datasetId === d.id} onClick={() => props.onChange({ datasetId: d.id })}>
                <span class="facet-title" title={d.title}>{d.title}</span>
                {d.managersOnly && (
                  <span class="managers-badge" title="Seen by the project’s managers only: where ground truth belongs">
                    Managers only
                  </span>
                )}
                <span class="facet-count">{format(d.counts?.images)}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <FilterPanel filter={filter} classes={props.classes} tags={props.tags} datasets={props.datasets} classCounts={counts?.classes} tagCounts={counts?.tags} onChange={props.onChange} />
      <section>
        <h2>Classes</h2>
        <SchemaLink projectId={props.project.id} />
        {props.classes.length === 0 ? (
          <p class="quiet-text">No classes</p>
        ) : (
          <p class="facet-hint" id="class-hint">
            A class <strong>filters</strong> the images. Its <EyeIcon open /> only <strong>draws</strong> its shapes on the tiles, or hides them.
          </p>
        )}
        <ul class="facets">
          {props.classes.map((c) => {
            const drawn = !overlay.hiddenClassIds.has(c.id);
            const label = `Draw ${c.title} on tiles`;
            return (
              <li key={c.id} class="class-facet">
                <button type="button" class="facet" aria-pressed={filter.classId === c.id} onClick={() => props.onChange({ classId: filter.classId === c.id ? undefined : c.id })}>
                  <span class="swatch" style={{ background: c.color }} aria-hidden="true" />
                  <span class="facet-title" title={c.title}>{c.title}</span>
                  <span class="facet-count">{format(counts?.classes.get(c.id))}</span>
                </button>
                <label class="draw-toggle" title={overlay.show ? label : 'Objects are off (toolbar)'}>
                  <input type="checkbox" checked={drawn} disabled={!overlay.show} aria-label={label} aria-describedby="class-hint" onChange={() => props.onView(withClassShown(overlay, c.id, !drawn))} />
                  <EyeIcon open={drawn} />
                </label>
              </li>
            );
          })}
        </ul>
      </section>
      <section>
        <h2>Tags</h2>
        <Link href={`/projects/${props.project.id}/tags`} class="manage-link">
          Manage tags
        </Link>
        {props.tags.length === 0 && <p class="quiet-text">No image tags</p>}
        <ul class="facets">
          {props.tags.map((t) => (
            <li key={t.id}>
              <button type="button" class="facet" aria-pressed={filter.tagId === t.id} onClick={() => props.onChange({ tagId: filter.tagId === t.id ? undefined : t.id })}>
                <span class="facet-title" title={t.title}>{t.title}</span>
                <span class="facet-count">{format(counts?.tags.get(t.id))}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section>
        <h2 id="predictions-filter">Predictions</h2>
        <Link href={`/projects/${props.project.id}/evaluation`} class="manage-link">
          Evaluate a model
        </Link>
        <select
          class="prediction-filter"
          aria-labelledby="predictions-filter"
          value={filter.predictionScore === undefined ? '' : String(filter.predictionScore)}
          onChange={(e) => {
            const value = (e.currentTarget as HTMLSelectElement).value;
            props.onChange({ predictionScore: value === '' ? undefined : Number(value) });
          }}
        >
          <option value="">Any image</option>
          {[0, 0.25, 0.5, 0.75, 0.9].map((t) => (
            <option key={t} value={String(t)}>
              {t === 0 ? 'With predictions' : `A prediction ≥ ${t.toFixed(2)}`}
            </option>
          ))}
        </select>
        <DisagreementFilter projectId={props.project.id} filter={filter} onChange={props.onChange} />
      </section>
      {props.children}
    </aside>
  );
}

/** The images whose predictions of a model disagree with the annotation, at a score and an IoU. */
function DisagreementFilter(props: { projectId: number; filter: ImageFilter; onChange: (next: Partial<ImageFilter>) => void }) {
  const { filter } = props;
  const [models, setModels] = useState<ProjectModel[] | null>(null);
  useEffect(() => {
    let live = true;
    listPredictionModels(props.projectId).then((m) => live && setModels(m), () => live && setModels([]));
    return () => void (live = false);
  }, [props.projectId]);
  const names = models?.map((m) => m.model) ?? [];
  // A model named by the URL is offered even before (or without) the list.
  if (filter.disagreeModel && !names.includes(filter.disagreeModel)) names.push(filter.disagreeModel);
  if (names.length === 0) return null;
  const pick = (label: string, value: string, options: [string, string][], change: (value: string) => void) => (
    <label class="disagree-setting">
      {label}
      <select value={value} onChange={(e) => change((e.currentTarget as HTMLSelectElement).value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div class="disagree-filter">
      <h3 id="disagree-filter">Disagrees with the annotation</h3>
      <select
        class="disagree-model"
        aria-labelledby="disagree-filter"
        value={filter.disagreeModel ?? ''}
        onChange={(e) => {
          const value = (e.currentTarget as HTMLSelectElement).value;
          props.onChange(value === '' ? { disagreeModel: undefined, disagreeScore: undefined, disagreeIou: undefined, disagreeIouType: undefined } : { disagreeModel: value });
        }}
      >
        <option value="">Any image</option>
        {names.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      {filter.disagreeModel && (
        <div class="disagree-settings">
          {pick('Score ≥', String(filter.disagreeScore ?? 0.5), [0.25, 0.5, 0.75, 0.9].map((t) => [String(t), t.toFixed(2)]), (v) => props.onChange({ disagreeScore: Number(v) }))}
          {pick('IoU ≥', String(filter.disagreeIou ?? 0.5), DISAGREE_IOUS.map((t) => [String(t), t.toFixed(2)]), (v) => props.onChange({ disagreeIou: Number(v) }))}
          {pick('Of', filter.disagreeIouType ?? 'bbox', [['bbox', 'boxes'], ['segm', 'masks']], (v) => props.onChange({ disagreeIouType: v as 'bbox' | 'segm' }))}
        </div>
      )}
    </div>
  );
}

/** An eye, open when the class's shapes are drawn, struck through when they are not. */
function EyeIcon(props: { open: boolean }) {
  return (
    <svg class="eye" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
      <path d="M2 12c2.6-4.7 6-7 10-7s7.4 2.3 10 7c-2.6 4.7-6 7-10 7s-7.4-2.3-10-7z" fill="none" stroke="currentColor" stroke-width="1.8" />
      <circle cx="12" cy="12" r="3.2" fill="currentColor" />
      {!props.open && <path d="M4 20L20 4" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" />}
    </svg>
  );
}
