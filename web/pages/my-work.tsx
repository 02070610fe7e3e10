// My work: the jobs the signed-in user annotates or reviews, with their progress; each opens its next
// image in the image view, with the job bar (docs/jobs.md).
import { useEffect, useState } from 'preact/hooks';
import { type Job, type Session, getProject, listMyJobs, nextJobImage } from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';
import { navigate } from '../router.ts';

export function MyWorkPage(props: { session: Session; onSignOut: () => void }) {
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [error, setError] = useState('');
  // Job titles name a dataset, not its project: a member of several projects needs both.
  const [projectTitles, setProjectTitles] = useState<Map<number, string>>(new Map());
  useEffect(() => {
    document.title = 'My work · Annostore';
    listMyJobs().then(
      async (loaded) => {
        setJobs(loaded);
        const ids = [...new Set(loaded.map((j) => j.projectId))];
        const titles = await Promise.all(ids.map((id) => getProject(id).then((p) => [id, p.title] as const, () => null)));
        setProjectTitles(new Map(titles.filter((t) => t !== null)));
      },
      (failure: Error) => setError(failure.message),
    );
  }, []);

  const start = async (job: Job, queue: 'annotate' | 'review') => {
    setError('');
    try {
      const next = await nextJobImage(job.id, { queue });
      if (next.image) navigate(`/images/${next.image.imageId}?job=${job.id}`);
      else setError(`Nothing to ${queue} in “${job.title}” now.`);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: 'My work' }]} />
      <main class="jobs-page">
        <h1>My work</h1>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {!jobs && !error && <p role="status">Loading…</p>}
        {jobs?.length === 0 && <p>No job is yours yet.</p>}
        <ul class="work-list">
          {jobs?.map((job) => {
            const annotating = job.assignee.id === props.session.user.id;
            const reviewing = job.reviewer?.id === props.session.user.id;
            return (
              <li key={job.id} class="work-card">
                <h2>{job.title}</h2>
                {projectTitles.has(job.projectId) && (
                  <p class="counts">
                    Project <Link href={`/projects/${job.projectId}/images`}>{projectTitles.get(job.projectId)!}</Link>
                  </p>
                )}
                <p class="counts">
                  {annotating && reviewing ? 'You annotate and review' : annotating ? `You annotate · reviewer ${job.reviewer?.login ?? 'a manager'}` : `You review · assignee ${job.assignee.login}`} · stage{' '}
                  <strong>{job.stage}</strong>
                </p>
                <p class="counts">
                  <progress max={job.progress.images} value={job.progress.accepted} /> {job.progress.accepted}/{job.progress.images} accepted · {job.progress.submitted} submitted ·{' '}
                  {job.progress.rejected} rejected
                </p>
                <p class="card-links">
                  {annotating && job.stage === 'annotate' && (
                    <button type="button" onClick={() => void start(job, 'annotate')}>
                      Annotate
                    </button>
                  )}
                  {reviewing && job.stage !== 'done' && (
                    <button type="button" onClick={() => void start(job, 'review')}>
                      Review
                    </button>
                  )}
                </p>
              </li>
            );
          })}
        </ul>
      </main>
    </>
  );
}
