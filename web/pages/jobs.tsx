// A project's jobs, for its managers: make jobs from a dataset split or from the gallery's filter, and
// follow each job's progress and each assignee's figures (docs/jobs.md).
import { useEffect, useState } from 'preact/hooks';
import {
  type AssigneeFigures,
  type Dataset,
  type Job,
  type Project,
  type Session,
  type User,
  apiFilter,
  countGroundTruth,
  getProject,
  jobFigures,
  jobFromFilter,
  listDatasets,
  listJobs,
  listUsers,
  splitDataset,
} from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';
import { filterFromUrl, filterQuery, narrows } from '../filters.ts';
import { allows, roleCaption, useProjectRole } from '../project-role.ts';
import type { Location } from '../router.ts';

const minutes = (ms: number) => `${Math.round(ms / 60000).toLocaleString('en')} min`;

export function JobsPage(props: { session: Session; onSignOut: () => void; projectId: number; location: Location }) {
  const [project, setProject] = useState<Project | null>(null);
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [figures, setFigures] = useState<AssigneeFigures[]>([]);
  // The datasets a split may take: null until read.
  const [datasets, setDatasets] = useState<Dataset[] | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const role = useProjectRole(props.projectId);
  const manager = allows(role, 'manager');
  const filter = filterFromUrl(props.location.params, props.projectId);
  const fromGallery = narrows(filter);

  const [datasetId, setDatasetId] = useState(0);
  const [perJob, setPerJob] = useState(50);
  const [assignees, setAssignees] = useState<number[]>([]);
  const [reviewerId, setReviewerId] = useState(0);
  const [title, setTitle] = useState('From the gallery');
  const [honeypots, setHoneypots] = useState(0);
  // The project's ground-truth images, which honeypots copy: undefined until read (a manager's).
  const [groundTruth, setGroundTruth] = useState<{ count: number; more: boolean } | undefined>(undefined);

  const load = async () => {
    const [loadedJobs, loadedFigures] = await Promise.all([listJobs(props.projectId), jobFigures(props.projectId)]);
    setJobs(loadedJobs);
    setFigures(loadedFigures);
  };
  useEffect(() => {
    document.title = 'Jobs · Annostore';
    void (async () => {
      try {
        const loaded = await getProject(props.projectId);
        setProject(loaded);
        document.title = `Jobs · ${loaded.title} · Annostore`;
        const loadedDatasets = await listDatasets(props.projectId);
        // A managers-only dataset's images go into no job (docs/jobs.md, Quality): it is not offered.
        const splittable = loadedDatasets.filter((d) => !d.managersOnly);
        setDatasets(splittable);
        setDatasetId(splittable[0]?.id ?? 0);
        await load();
      } catch (failure) {
        setError((failure as Error).message);
      }
    })();
  }, [props.projectId]);
  // The team's users, to assign: read once the caller is known to manage the project.
  useEffect(() => {
    if (!manager) return;
    listUsers().then((loaded) => setUsers(loaded.filter((u) => u.disabledAt === null)), (failure: Error) => setError(failure.message));
    countGroundTruth(props.projectId).then(setGroundTruth, (failure: Error) => setError(failure.message));
  }, [manager, props.projectId]);

  const act = (action: () => Promise<string>) => async (event: Event) => {
    event.preventDefault();
    setError('');
    setNotice('');
    try {
      const done = await action();
      // The notice comes with the list read again, so what it says is already on the page.
      try {
        await load();
      } finally {
        setNotice(done);
      }
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const toggle = (id: number) => setAssignees((all) => (all.includes(id) ? all.filter((a) => a !== id) : [...all, id]));
  const reviewerSelect = (
    <label>
      Reviewer{' '}
      <select value={reviewerId} onChange={(e) => setReviewerId(Number((e.currentTarget as HTMLSelectElement).value))}>
        <option value={0}>None (managers review)</option>
        {users.map((u) => (
          <option key={u.id} value={u.id}>
            {u.login}
          </option>
        ))}
      </select>
    </label>
  );
  // Honeypots copy ground-truth images: with none in the project the field says how to mark some.
  const honeypotField = (label: string, noteId: string) => {
    const none = groundTruth?.count === 0;
    const some = groundTruth?.count ? `${groundTruth.count}${groundTruth.more ? ' or more' : ''}` : '';
    return (
      <>
        <label>
          {label}{' '}
          <input
            type="number"
            min={0}
            max={groundTruth?.count ?? 0}
            value={honeypots}
            disabled={!groundTruth?.count}
            aria-describedby={none ? noteId : undefined}
            onInput={(e) => setHoneypots(Number((e.currentTarget as HTMLInputElement).value))}
          />
        </label>
        {none && (
          <p id={noteId} class="quiet-text field-note">
            This project has no ground truth yet: select images in the <Link href={`/projects/${props.projectId}/images`}>gallery</Link> and mark them as ground truth to mix honeypots into jobs.
          </p>
        )}
        {some && <p class="quiet-text field-note">Copies of the project’s {some} ground-truth image{some === '1' ? '' : 's'}, hidden among each job’s images; their results are on the <Link href={`/projects/${props.projectId}/quality`}>Quality</Link> page.</p>}
      </>
    );
  };
  const galleryHref = `/projects/${props.projectId}/images${filterQuery({ ...filter, projectId: undefined })}`;

  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: project?.title ?? '…', href: `/projects/${props.projectId}/images` }, { label: 'Jobs' }]} />
      <main class="jobs-page">
        <h1>Jobs</h1>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {notice && <p role="status">{notice}</p>}
        {role !== undefined && !manager && <p class="role-note quiet-text">{roleCaption(role, 'only its managers make jobs. Your own jobs are under My work.')}</p>}
        {manager && (
          <div class="job-forms">
            <form class="job-form" aria-label="Split a dataset" onSubmit={act(async () => {
              if (assignees.length === 0) throw new Error('Choose at least one assignee.');
              const made = await splitDataset(datasetId, { imagesPerJob: perJob, assigneeIds: assignees, reviewerId: reviewerId || null, honeypots: groundTruth?.count ? honeypots : 0 });
              return `${made.length} job${made.length === 1 ? '' : 's'} made.`;
            })}>
              <h2>Split a dataset</h2>
              <label>
                Dataset{' '}
                <select value={datasetId} onChange={(e) => setDatasetId(Number((e.currentTarget as HTMLSelectElement).value))}>
                  {(datasets ?? []).map((d) => (
                    <option key={d.id} value={d.id}>
                      {d.title}
                    </option>
                  ))}
                </select>
              </label>
              {datasets?.length === 0 && (
                <p class="quiet-text field-note">No dataset to split: the project has none yet, or only managers-only ones, whose images go into no job.</p>
              )}
              <label>
                Images per job <input type="number" min={1} max={10000} value={perJob} onInput={(e) => setPerJob(Number((e.currentTarget as HTMLInputElement).value))} />
              </label>
              <fieldset>
                <legend>Assignees (one job each)</legend>
                {users.map((u) => (
                  <label key={u.id} class="check">
                    <input type="checkbox" checked={assignees.includes(u.id)} onChange={() => toggle(u.id)} /> {u.login}
                  </label>
                ))}
              </fieldset>
              {reviewerSelect}
              {honeypotField('Honeypots per job', 'split-honeypots-note')}
              {/* Enabled once the datasets are read: a split sent before would name no dataset. */}
              <button type="submit" disabled={datasetId === 0}>
                Make jobs
              </button>
            </form>
            {fromGallery && (
              <form class="job-form" aria-label="A job of the gallery's images" onSubmit={act(async () => {
                if (assignees.length !== 1) throw new Error('Choose one assignee for this job.');
                // The project is the path's, and a job's order is by id.
                const made = await jobFromFilter(props.projectId, { title, assigneeId: assignees[0]!, reviewerId: reviewerId || null, honeypots: groundTruth?.count ? honeypots : 0, filter: apiFilter({ ...filter, sort: undefined, projectId: undefined }) });
                return `Job "${made.title}" made of ${made.progress.images} images.`;
              })}>
                <h2>A job of the gallery’s images</h2>
                <p>
                  The images <Link href={galleryHref}>the gallery shows</Link> that are in no job yet, for the one assignee checked.
                </p>
                <label>
                  Title <input type="text" maxLength={255} value={title} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
                </label>
                {honeypotField('Honeypots in the job', 'filter-honeypots-note')}
                <button type="submit">Make the job</button>
              </form>
            )}
          </div>
        )}
        {!jobs && !error && <p role="status">Loading jobs…</p>}
        {jobs?.length === 0 && <p>No jobs yet.</p>}
        {jobs && jobs.length > 0 && (
          <div class="table-scroll">
            <table class="jobs-table">
              <thead>
                <tr>
                  <th>Job</th>
                  <th>Assignee</th>
                  <th>Reviewer</th>
                  <th>Stage</th>
                  <th>Accepted</th>
                  <th>Submitted</th>
                  <th>Rejected</th>
                  <th>First review</th>
                  <th>Time</th>
                  <th>Objects</th>
                </tr>
              </thead>
              <tbody>
                {jobs.map((j) => (
                  <tr key={j.id}>
                    <td>{j.title}</td>
                    <td>{j.assignee.login}</td>
                    <td>{j.reviewer?.login ?? '—'}</td>
                    <td>{j.stage}</td>
                    <td>
                      <progress max={j.progress.images} value={j.progress.accepted} /> {j.progress.accepted}/{j.progress.images}
                    </td>
                    <td>{j.progress.submitted}</td>
                    <td>{j.progress.rejected}</td>
                    <td>{j.progress.acceptedFirstReview}</td>
                    <td>{minutes(j.progress.timeSpentMs)}</td>
                    <td>{j.progress.objectsMade}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {figures.length > 0 && (
          <>
            <h2>Per assignee</h2>
            <div class="table-scroll">
              <table class="figures-table">
                <thead>
                  <tr>
                    <th>Assignee</th>
                    <th>Jobs</th>
                    <th>Images</th>
                    <th>Done</th>
                    <th>Accepted on first review</th>
                    <th>Time</th>
                    <th>Objects made</th>
                  </tr>
                </thead>
                <tbody>
                  {figures.map((f) => (
                    <tr key={f.userId}>
                      <td>{f.login}</td>
                      <td>{f.jobs}</td>
                      <td>{f.images}</td>
                      <td>{f.accepted}</td>
                      <td>{f.acceptedFirstReview}</td>
                      <td>{minutes(f.timeSpentMs)}</td>
                      <td>{f.objectsMade}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </main>
    </>
  );
}
