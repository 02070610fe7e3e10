// A project's versions: the list, a new version with its split, one version's subsets, classes and
// split leakage, a diff against another version, its export, and its deletion.
import { useEffect, useState } from 'preact/hooks';
import {
  type Dataset,
  type Leakage,
  type Session,
  type Version,
  type VersionDiff,
  type VersionInput,
  createVersion,
  deleteVersion,
  diffVersions,
  getProject,
  listDatasets,
  listVersions,
  versionLeakage,
} from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ExportForm } from '../components/export-form.tsx';
import { Header } from '../components/header.tsx';
import { allows, roleCaption, useProjectRole } from '../project-role.ts';
import '../schema.css';

type Method = 'none' | 'random' | 'stratified' | 'datasets';

/** "train=0.8, val=0.2" as ratios; null when it does not read so. */
function parseRatios(text: string): Record<string, number> | null {
  const ratios: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [name, value] = part.split('=').map((p) => p.trim());
    const ratio = Number(value);
    if (!name || !(ratio > 0)) return null;
    ratios[name] = ratio;
  }
  return Object.keys(ratios).length > 0 ? ratios : null;
}

const subsetsText = (v: Version) =>
  Object.entries(v.subsets)
    .filter(([name]) => name !== '')
    .map(([name, n]) => `${name} ${n}`)
    .join(', ') || '—';

function NewVersionForm(props: { projectId: number; datasets: Dataset[]; onMade: (v: Version) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [method, setMethod] = useState<Method>('random');
  const [ratios, setRatios] = useState('train=0.8, val=0.2');
  const [seed, setSeed] = useState('42');
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    setError('');
    let split: VersionInput['split'] = { method: 'none' };
    if (method === 'datasets') split = { method: 'datasets' };
    if (method === 'random' || method === 'stratified') {
      const parsed = parseRatios(ratios);
      if (!parsed) return setError('Ratios read as name=number, separated by commas: train=0.8, val=0.2');
      split = { method: 'random', ratios: parsed, seed: Number(seed) || 0, ...(method === 'stratified' ? { stratify: true } : {}) };
    }
    setBusy(true);
    try {
      props.onMade(await createVersion(props.projectId, { name, description, split, ...(chosen.size > 0 ? { datasetIds: [...chosen] } : {}) }));
      setName('');
      setDescription('');
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const random = method === 'random' || method === 'stratified';
  return (
    <form class="version-form" onSubmit={submit} aria-labelledby="new-version">
      <h2 id="new-version">New version</h2>
      <label>
        Name <input required maxLength={255} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <label>
        Description <input value={description} onInput={(e) => setDescription((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <label>
        Split
        <select value={method} onChange={(e) => setMethod((e.currentTarget as HTMLSelectElement).value as Method)}>
          <option value="none">None</option>
          <option value="random">Random</option>
          <option value="stratified">Random, stratified by class</option>
          <option value="datasets">By dataset</option>
        </select>
      </label>
      {random && (
        <>
          <label>
            Ratios <input value={ratios} onInput={(e) => setRatios((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <label>
            Seed <input type="number" value={seed} onInput={(e) => setSeed((e.currentTarget as HTMLInputElement).value)} />
          </label>
        </>
      )}
      <fieldset>
        <legend>Datasets (none ticked: all)</legend>
        {props.datasets.map((d) => (
          <label key={d.id} class="check">
            <input
              type="checkbox"
              checked={chosen.has(d.id)}
              onChange={(e) => {
                const next = new Set(chosen);
                if ((e.currentTarget as HTMLInputElement).checked) next.add(d.id);
                else next.delete(d.id);
                setChosen(next);
              }}
            />
            {d.title}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy}>
        Create version
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function VersionDetails(props: { version: Version; others: Version[]; readOnly: boolean; onDeleted: () => void }) {
  const v = props.version;
  const [leakage, setLeakage] = useState<Leakage | null>(null);
  const [from, setFrom] = useState<number | null>(null);
  const [diff, setDiff] = useState<VersionDiff | null>(null);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState('');

  // Each version has its own details (keyed by its id), so its state starts empty: nothing to reset
  // here, where a reset would undo a choice made before the effect ran.
  useEffect(() => {
    versionLeakage(v.id).then(setLeakage, (failure: Error) => setError(failure.message));
  }, [v.id]);
  useEffect(() => {
    if (from === null) return setDiff(null);
    diffVersions(from, v.id).then(setDiff, (failure: Error) => setError(failure.message));
  }, [from, v.id]);

  return (
    <section class="version-details" aria-labelledby="version-title">
      <h2 id="version-title">Version {v.name}</h2>
      {v.description && <p>{v.description}</p>}
      <p>
        {v.imageCount} images, {v.objectCount} objects; subsets: {subsetsText(v)}
      </p>
      <h3>Classes</h3>
      <table class="version-classes">
        <thead>
          <tr>
            <th scope="col">Index</th>
            <th scope="col">Class</th>
            <th scope="col">Shape</th>
          </tr>
        </thead>
        <tbody>
          {v.classes.map((c) => (
            <tr key={c.index}>
              <td>{c.index}</td>
              <td>
                <span class="swatch" style={{ background: c.color }} aria-hidden="true" /> {c.title}
              </td>
              <td>{c.shape}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Split leakage</h3>
      {!leakage && <p role="status">Looking for copies across subsets…</p>}
      {leakage && (
        <div class="leakage">
          <p>
            {leakage.groupCount === 0 ? 'No image has a copy or near-duplicate in another subset.' : `${leakage.groupCount} ${leakage.groupCount === 1 ? 'group' : 'groups'} of copies or near-duplicates ${leakage.groupCount === 1 ? 'spans' : 'span'} subsets (${leakage.imagesInGroups} images).`}
            {leakage.pending > 0 && ` ${leakage.pending} images have no perceptual hashes yet: only their exact copies were compared.`}
          </p>
          <ul>
            {leakage.groups.map((g) => (
              <li key={g.images[0]!.imageId}>
                {g.images.map((i) => `${i.name} (${i.subset})`).join(' · ')}
                {g.pairs[0] && ` — ${g.pairs[0].sameBytes ? 'same bytes' : `distance ${g.pairs[0].distance}`}`}
              </li>
            ))}
          </ul>
        </div>
      )}
      <h3>Compare</h3>
      <label>
        Changes since
        <select value={from ?? ''} onChange={(e) => setFrom(Number((e.currentTarget as HTMLSelectElement).value) || null)}>
          <option value="">choose a version</option>
          {props.others.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      {diff && (
        <div class="version-diff">
          <p>
            Images: {diff.images.added} added, {diff.images.removed} removed, {diff.images.changed} changed, {diff.images.unchanged} unchanged.
          </p>
          {diff.classes.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th scope="col">Class</th>
                  <th scope="col">Objects added</th>
                  <th scope="col">removed</th>
                  <th scope="col">changed</th>
                </tr>
              </thead>
              <tbody>
                {diff.classes.map((c) => (
                  <tr key={c.title}>
                    <td>{c.title}</td>
                    <td>{c.added}</td>
                    <td>{c.removed}</td>
                    <td>{c.changed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      {!props.readOnly && (
        <>
          <h3>Export</h3>
          <ExportForm projectId={v.projectId} version={v.id} name={`version ${v.name}`} classTitles={v.classes.map((c) => c.title)} />
        </>
      )}
      {!props.readOnly && (
        <button type="button" class="danger" onClick={() => setAsking(true)}>
          Delete version {v.name}
        </button>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ConfirmDialog
        open={asking}
        title={`Delete version ${v.name}?`}
        confirmLabel="Delete version"
        onCancel={() => setAsking(false)}
        onConfirm={() => {
          deleteVersion(v.id).then(
            () => {
              setAsking(false);
              props.onDeleted();
            },
            (failure: Error) => setError(failure.message),
          );
        }}
      >
        <p>The project stays as it is; the version's {v.imageCount} images and annotations as frozen go. A version cannot be made again as it was.</p>
      </ConfirmDialog>
    </section>
  );
}

export function VersionsPage(props: { session: Session; onSignOut: () => void; projectId: number }) {
  const [title, setTitle] = useState('…');
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [datasets, setDatasets] = useState<Dataset[]>([]);
  const [shown, setShown] = useState<number | null>(null);
  const [error, setError] = useState('');
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    Promise.all([getProject(props.projectId), listVersions(props.projectId), listDatasets(props.projectId)]).then(
      ([project, list, sets]) => {
        if (!live) return;
        document.title = `Versions · ${project.title} · Annostore`;
        setTitle(project.title);
        setVersions(list);
        setDatasets(sets);
      },
      (failure: Error) => live && setError(failure.message),
    );
    return () => void (live = false);
  }, [props.projectId, generation]);

  // Making, exporting and deleting versions is the project's managers'; everyone compares them.
  const role = useProjectRole(props.projectId);
  const readOnly = !allows(role, 'manager');
  const current = versions?.find((v) => v.id === shown) ?? null;
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: title, href: `/projects/${props.projectId}/images` }, { label: 'Versions' }]} />
      <main class="versions">
        <h1>Versions of {title}</h1>
        {role !== undefined && readOnly && <p class="role-note quiet-text">{roleCaption(role, 'only its managers make, export or delete versions.')}</p>}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {!versions && !error && <p role="status">Loading…</p>}
        {versions && versions.length === 0 && <p class="empty">No version yet: a version freezes the project to train on.</p>}
        {versions && versions.length > 0 && (
          <table class="version-list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Images</th>
                <th scope="col">Objects</th>
                <th scope="col">Subsets</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.id} aria-current={v.id === shown ? 'true' : undefined}>
                  <td>
                    <button type="button" class="link" onClick={() => setShown(v.id)}>
                      {v.name}
                    </button>
                  </td>
                  <td>{new Date(v.createdAt).toLocaleString()}</td>
                  <td>{v.imageCount}</td>
                  <td>{v.objectCount}</td>
                  <td>{subsetsText(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {current && (
          <VersionDetails
            key={current.id}
            version={current}
            others={versions!.filter((v) => v.id !== current.id)}
            readOnly={readOnly}
            onDeleted={() => {
              setShown(null);
              setGeneration((n) => n + 1);
            }}
          />
        )}
        {!readOnly && (
          <NewVersionForm
            projectId={props.projectId}
            datasets={datasets}
            onMade={(v) => {
              setShown(v.id);
              setGeneration((n) => n + 1);
            }}
          />
        )}
      </main>
    </>
  );
}
