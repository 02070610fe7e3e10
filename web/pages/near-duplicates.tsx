// A project's near-duplicates: groups of images that look alike (resized, recompressed, slightly
// cropped or brightened copies), a row of thumbnails each, the groups that span datasets (a leak
// between splits) flagged and, on demand, shown alone. The threshold and that choice live in the URL.
// Images can be selected (a whole group but its first in one click) to tag or delete them.
import { useEffect, useState } from 'preact/hooks';
import { DEFAULT_DISTANCE, MAX_DISTANCE } from '../../src/services/hamming-pairs.ts';
import { type NearDuplicateReport, type Project, type Session, type Tag, getProject, hashProject, listImageTags, nearDuplicates, thumbnailUrl } from '../api.ts';
import { BatchBar } from '../components/batch-bar.tsx';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';
import { allows, useProjectRole } from '../project-role.ts';
import { type Location, navigate } from '../router.ts';

/** Groups asked for at a time. */
const PAGE = 50;

type Group = NearDuplicateReport['groups'][number];

interface Props {
  session: Session;
  onSignOut: () => void;
  location: Location;
  projectId: number;
}

const distanceOf = (params: URLSearchParams): number => {
  const value = Number(params.get('distance') ?? DEFAULT_DISTANCE);
  return Number.isInteger(value) && value >= 0 && value <= MAX_DISTANCE ? value : DEFAULT_DISTANCE;
};

export function NearDuplicatesPage(props: Props) {
  const distance = distanceOf(props.location.params);
  const crossDataset = props.location.params.get('cross') === '1';
  const role = useProjectRole(props.projectId);
  const [project, setProject] = useState<Project | null>(null);
  const [tags, setTags] = useState<Tag[]>([]);
  const [report, setReport] = useState<NearDuplicateReport | null>(null);
  const [groups, setGroups] = useState<Group[]>([]);
  const [error, setError] = useState('');
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [generation, setGeneration] = useState(0);
  const [shownDistance, setShownDistance] = useState(distance);
  const [hashing, setHashing] = useState('');

  useEffect(() => {
    Promise.all([getProject(props.projectId), listImageTags(props.projectId)]).then(([p, t]) => {
      document.title = `Near-duplicates · ${p.title} · Annostore`;
      setProject(p);
      setTags(t);
    }, (failure: Error) => setError(failure.message));
  }, [props.projectId]);

  useEffect(() => {
    let live = true;
    setShownDistance(distance);
    setReport(null);
    nearDuplicates(props.projectId, { distance, crossDataset, limit: PAGE, offset: 0 }).then((answer) => {
      if (!live) return;
      setReport(answer);
      setGroups(answer.groups);
      // Images deleted (or no longer in a group) leave the selection; the rest stay selected.
      const shown = new Set(answer.groups.flatMap((g) => g.images.map((image) => image.id)));
      setSelected((before) => (before.size === 0 ? before : new Set([...before].filter((id) => shown.has(id)))));
    }, (failure: Error) => live && setError(failure.message));
    return () => void (live = false);
  }, [props.projectId, distance, crossDataset, generation]);

  const go = (change: { distance?: number; cross?: boolean }) => {
    const params = new URLSearchParams();
    const d = change.distance ?? distance;
    if (d !== DEFAULT_DISTANCE) params.set('distance', String(d));
    if (change.cross ?? crossDataset) params.set('cross', '1');
    const search = params.toString();
    setSelected(new Set());
    navigate(`/projects/${props.projectId}/near-duplicates${search ? `?${search}` : ''}`, { replace: true });
  };
  const more = async () => {
    const answer = await nearDuplicates(props.projectId, { distance, crossDataset, limit: PAGE, offset: groups.length });
    setGroups([...groups, ...answer.groups]);
  };
  const toggle = (ids: number[], on: boolean) => {
    const next = new Set(selected);
    for (const id of ids) {
      if (on) next.add(id);
      else next.delete(id);
    }
    setSelected(next);
  };
  const hash = async () => {
    setHashing('Queueing…');
    try {
      const queued = await hashProject(props.projectId);
      setHashing(queued.blobs === 0 ? 'Nothing left to hash.' : `Hashing ${queued.blobs.toLocaleString('en')} images in the background (see Tasks); reload when it is done.`);
    } catch (failure) {
      setHashing((failure as Error).message);
    }
  };

  const trail = [{ label: project?.title ?? '…', href: `/projects/${props.projectId}/images` }, { label: 'Near-duplicates' }];
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={trail} />
      <main class="near-page">
        <div class="toolbar">
          <h1>
            Near-duplicates
            <span class="total" role="status">
              {report ? ` · ${report.groupCount.toLocaleString('en')} ${report.groupCount === 1 ? 'group' : 'groups'}, ${report.crossDatasetGroups.toLocaleString('en')} across datasets` : ''}
            </span>
          </h1>
          <div class="controls">
            <label class="threshold">
              Threshold
              <input
                type="range"
                min={0}
                max={MAX_DISTANCE}
                step={1}
                value={shownDistance}
                aria-valuetext={`${shownDistance} bits`}
                onInput={(e) => setShownDistance(Number((e.currentTarget as HTMLInputElement).value))}
                onChange={(e) => go({ distance: Number((e.currentTarget as HTMLInputElement).value) })}
              />
              <output>{shownDistance} bits</output>
            </label>
            <label>
              <input type="checkbox" checked={crossDataset} onChange={() => go({ cross: !crossDataset })} /> Only groups across datasets
            </label>
          </div>
        </div>
        {selected.size > 0 && <BatchBar projectId={props.projectId} selected={selected} tags={tags} canTag={allows(role, 'annotator')} canDelete={allows(role, 'manager')} onClear={() => setSelected(new Set())} onChanged={() => setGeneration(generation + 1)} />}
        <div class="near-body">
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          {report && report.pending > 0 && (
            <p class="notice">
              {report.pending.toLocaleString('en')} of {report.images.toLocaleString('en')} images have no perceptual hashes yet and are left out.{' '}
              {/* Hashing is queued work on the project: its managers'. */}
              {allows(role, 'manager') && (
                <button type="button" class="quiet" onClick={() => void hash()}>
                  Hash them
                </button>
              )}{' '}
              <span role="status">{hashing}</span>
            </p>
          )}
          {!report && !error && <p role="status">Comparing images…</p>}
          {report && groups.length === 0 && <p class="empty">No near-duplicates at this threshold.</p>}
          <ol class="near-groups">
            {groups.map((group) => (
              <GroupRow key={group.images[0]!.id} group={group} selected={selected} onToggle={toggle} />
            ))}
          </ol>
          {report && groups.length < report.groupCount && (
            <button type="button" class="quiet" onClick={() => void more()}>
              Show more groups
            </button>
          )}
        </div>
      </main>
    </>
  );
}

function GroupRow(props: { group: Group; selected: Set<number>; onToggle: (ids: number[], on: boolean) => void }) {
  const { group } = props;
  const ids = group.images.map((image) => image.id);
  const rest = ids.slice(1);
  const restSelected = rest.every((id) => props.selected.has(id));
  return (
    <li class={`near-group${group.crossDataset ? ' cross' : ''}`}>
      <div class="near-group-head">
        <strong>{group.size} images</strong>
        <span class="quiet-text">{group.datasets.map((d) => `${d.title} ${d.count}`).join(' · ')}</span>
        {group.crossDataset && <span class="flag">Across datasets</span>}
        <button type="button" class="quiet" onClick={() => props.onToggle(rest, !restSelected)}>
          {restSelected ? 'Unselect the rest' : 'Select all but the first'}
        </button>
      </div>
      <ul class="near-row">
        {group.images.map((image) => (
          <li key={image.id} class={props.selected.has(image.id) ? 'selected' : undefined}>
            <input type="checkbox" class="select" aria-label={`Select ${image.name}`} checked={props.selected.has(image.id)} onChange={() => props.onToggle([image.id], !props.selected.has(image.id))} />
            <Link href={`/images/${image.id}`} title={image.name}>
              <img src={thumbnailUrl(image.id)} alt="" loading="lazy" width={120} height={120} />
              <span class="caption">{image.name}</span>
            </Link>
            <span class="caption quiet-text">{image.datasetTitle}</span>
          </li>
        ))}
        {group.size > group.images.length && <li class="near-more quiet-text">+{group.size - group.images.length} more</li>}
      </ul>
    </li>
  );
}
