// The job bar of the image view, when the image is opened from a job (`?job=<id>`): the image's state,
// next and submit for the assignee; accept, and reject with issues pinned by clicking on the image, for
// the reviewer; the image's issues drawn on it and listed with their threads (docs/jobs.md).
import type { JSX } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import {
  type Issue,
  type Job,
  type JobImage,
  type ProjectRole,
  type Session,
  acceptJobImage,
  commentOnIssue,
  getJob,
  imageIssues,
  jobImages,
  nextJobImage,
  openJobImage,
  rejectJobImage,
  resolveIssue,
  submitJob,
  submitJobImage,
} from '../api.ts';
import { allows } from '../project-role.ts';
import { navigate } from '../router.ts';

interface Pin {
  x: number;
  y: number;
  comment: string;
}

export interface JobReview {
  /** The bar above the stage, or null outside a job. */
  bar: JSX.Element | null;
  /** The issues (and the pins of a rejection being written) drawn in image pixels. */
  layer: (scale: number) => JSX.Element | null;
  /** True while a click on the image pins an issue. */
  pinning: boolean;
  pin: (x: number, y: number) => void;
}

const imageHref = (jobId: number, imageId: number) => `/images/${imageId}?job=${jobId}`;
const minutes = (ms: number) => `${Math.round(ms / 60000)} min`;

/** `role`: the caller's in the job's project; the API asks an annotator's role of the assignee, a reviewer's of the reviewer. */
export function useJobReview(jobId: number | undefined, imageId: number, session: Session, role: ProjectRole): JobReview {
  const [job, setJob] = useState<Job | null>(null);
  const [state, setState] = useState<JobImage | null>(null);
  const [issues, setIssues] = useState<Issue[]>([]);
  const [pins, setPins] = useState<Pin[] | null>(null);
  const [error, setError] = useState('');
  const [replies, setReplies] = useState<Record<number, string>>({});

  const load = useCallback(async () => {
    if (!jobId) return;
    const [loaded, images] = await Promise.all([getJob(jobId), jobImages(jobId)]);
    setJob(loaded);
    setState(images.find((i) => i.imageId === imageId) ?? null);
    setIssues(await imageIssues(jobId, imageId).catch(() => []));
  }, [jobId, imageId]);

  useEffect(() => {
    setPins(null);
    setError('');
    if (!jobId) return;
    void (async () => {
      try {
        const loaded = await getJob(jobId);
        // The assignee's open starts the image's clock.
        if (loaded.stage === 'annotate' && loaded.assignee.id === session.user.id) await openJobImage(jobId, imageId).catch(() => undefined);
        await load();
      } catch (failure) {
        setError((failure as Error).message);
      }
    })();
  }, [jobId, imageId]);

  const run = (action: () => Promise<unknown>) => async () => {
    setError('');
    try {
      await action();
      await load();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const pin = useCallback((x: number, y: number) => setPins((p) => (p ? [...p, { x: Math.round(x), y: Math.round(y), comment: '' }] : p)), []);

  if (!jobId) return { bar: null, layer: () => null, pinning: false, pin };

  const isAssignee = job?.assignee.id === session.user.id && allows(role, 'annotator');
  const isReviewer = job?.reviewer?.id === session.user.id && allows(role, 'reviewer');
  const manager = allows(role, 'manager');
  const queue = isReviewer && !isAssignee ? 'review' : 'annotate';
  const goNext = async () => {
    const next = await nextJobImage(jobId, { queue, after: imageId });
    if (next.image && next.image.imageId !== imageId) navigate(imageHref(jobId, next.image.imageId));
    else setError(next.image ? 'This is the last image of your queue.' : 'Your queue is empty.');
  };
  // A thread reads as a conversation only with its speakers named. Only the assignee, the reviewer and
  // managers comment, so anyone the job does not name is a manager (or a reviewer it no longer names).
  const authorOf = (userId: number | null) =>
    userId === session.user.id ? 'you' : userId === job?.assignee.id ? job.assignee.login : userId === job?.reviewer?.id ? job.reviewer.login : 'a manager';
  const sendRejection = async () => {
    if (!pins || pins.length === 0) throw new Error('Click on the image to pin an issue first.');
    if (pins.some((p) => !p.comment.trim())) throw new Error('Say what is wrong at each pin.');
    await rejectJobImage(jobId, imageId, pins.map((p) => ({ x: p.x, y: p.y, comment: p.comment.trim() })));
    setPins(null);
  };

  const bar = (
    <section class="job-bar" aria-label="Job">
      <div class="job-bar-row">
        <strong>{job?.title ?? 'Job'}</strong>
        {job && <span class="job-stage">{job.stage}</span>}
        {state && (
          <span class={`job-state state-${state.state}`} role="status">
            {state.state.replace('_', ' ')}
          </span>
        )}
        {job && (
          <span class="job-counts">
            {job.progress.accepted}/{job.progress.images} accepted · {minutes(job.progress.timeSpentMs)}
          </span>
        )}
        <span class="job-actions">
          <button type="button" onClick={run(goNext)}>
            Next image
          </button>
          {(isAssignee || manager) && state && ['new', 'in_progress', 'rejected'].includes(state.state) && job?.stage !== 'done' && (
            <button type="button" onClick={run(() => submitJobImage(jobId, imageId))}>
              Submit image
            </button>
          )}
          {(isAssignee || manager) && job?.stage === 'annotate' && (
            <button type="button" onClick={run(() => submitJob(jobId))}>
              Submit job
            </button>
          )}
          {(isReviewer || manager) && state?.state === 'submitted' && pins === null && (
            <>
              <button type="button" class="accept" onClick={run(() => acceptJobImage(jobId, imageId))}>
                Accept
              </button>
              <button type="button" class="reject" onClick={() => setPins([])}>
                Reject…
              </button>
            </>
          )}
        </span>
      </div>
      {pins !== null && (
        <div class="job-reject">
          <p>Click on the image where something is wrong; say what at each pin.</p>
          <ol>
            {pins.map((p, i) => (
              <li key={i}>
                <label>
                  Issue {i + 1} at ({p.x}, {p.y}){' '}
                  <input
                    type="text"
                    maxLength={4000}
                    value={p.comment}
                    onInput={(e) => {
                      const comment = (e.currentTarget as HTMLInputElement).value;
                      setPins((all) => all && all.map((q, k) => (k === i ? { ...q, comment } : q)));
                    }}
                  />
                </label>
              </li>
            ))}
          </ol>
          <button type="button" class="reject" onClick={run(sendRejection)} disabled={pins.length === 0}>
            Send rejection
          </button>
          <button type="button" class="quiet" onClick={() => setPins(null)}>
            Cancel
          </button>
        </div>
      )}
      {issues.length > 0 && (
        <ol class="job-issues" aria-label="Issues">
          {issues.map((issue, i) => (
            <li key={issue.id} class={`issue issue-${issue.status}`}>
              <div>
                <strong>Issue {i + 1}</strong> {issue.objectId !== null ? `on object ${issue.objectId}` : `at (${issue.x}, ${issue.y})`} · {issue.status}
              </div>
              <ul class="thread">
                {issue.comments.map((c) => (
                  <li key={c.id}>
                    <span class="author">{authorOf(c.userId)}:</span> {c.body}
                  </li>
                ))}
              </ul>
              <div class="reply">
                <input
                  type="text"
                  aria-label={`Reply to issue ${i + 1}`}
                  maxLength={4000}
                  value={replies[issue.id] ?? ''}
                  onInput={(e) => setReplies({ ...replies, [issue.id]: (e.currentTarget as HTMLInputElement).value })}
                />
                <button
                  type="button"
                  disabled={!(replies[issue.id] ?? '').trim()}
                  onClick={run(async () => {
                    await commentOnIssue(issue.id, replies[issue.id]!.trim());
                    setReplies({ ...replies, [issue.id]: '' });
                  })}
                >
                  Reply
                </button>
                {issue.status === 'open' && (isAssignee || manager) && (
                  <button type="button" onClick={run(() => resolveIssue(issue.id))}>
                    Resolve
                  </button>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );

  const layer = (scale: number) => {
    const marks = [
      ...issues.filter((i) => i.x !== null && i.y !== null).map((i, k) => ({ x: i.x!, y: i.y!, label: String(k + 1), open: i.status === 'open' })),
      ...(pins ?? []).map((p, k) => ({ x: p.x, y: p.y, label: `+${k + 1}`, open: true })),
    ];
    if (marks.length === 0) return null;
    const r = 10 / scale;
    return (
      <g class="issue-layer" aria-label="Issues on the image">
        {marks.map((m, k) => (
          <g key={k} class={m.open ? 'issue-mark open' : 'issue-mark resolved'}>
            <circle cx={m.x} cy={m.y} r={r} stroke-width={2 / scale} />
            <text x={m.x} y={m.y} font-size={11 / scale} text-anchor="middle" dominant-baseline="central">
              {m.label}
            </text>
          </g>
        ))}
      </g>
    );
  };

  return { bar, layer, pinning: pins !== null, pin };
}
