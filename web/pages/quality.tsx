// A project's quality, for its managers (docs/jobs.md "Quality"): each annotator's work on the
// honeypots (ground-truth images hidden in jobs) against the truth, with the figures per class and
// per honeypot, and the project's ground-truth images. The report's figures are shown as the API
// answers them; nobody else is asked for them (the API would refuse with 403).
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type GroundTruthImage, type Project, type QualityReport, type Session, getProject, listGroundTruth, qualityReport } from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';
import { allows, roleCaption, useProjectRole } from '../project-role.ts';
import { iou, percent } from '../quality-figures.ts';
import { NotFoundPage } from './not-found.tsx';

type Annotator = QualityReport['annotators'][number];
/** The figures every row of the report has (the schema's figure members). */
type Figures = Pick<Annotator, 'truths' | 'answers' | 'matched' | 'precision' | 'recall' | 'meanIou'>;


// The ratios first, so that a narrow window shows them before the counts they come from.
const FIGURE_HEADS = ['Precision', 'Recall', 'Mean IoU', 'Truths', 'Answers', 'Matched'];
const figureCells = (f: Figures) => (
  <>
    <td>{percent(f.precision)}</td>
    <td>{percent(f.recall)}</td>
    <td>{iou(f.meanIou)}</td>
    <td>{f.truths}</td>
    <td>{f.answers}</td>
    <td>{f.matched}</td>
  </>
);
const classCount = (n: number): string => `${n} ${n === 1 ? 'class' : 'classes'}`;

export function QualityPage(props: { session: Session; onSignOut: () => void; projectId: number }) {
  const [project, setProject] = useState<Project | null>(null);
  const [missing, setMissing] = useState(false);
  const [report, setReport] = useState<QualityReport | null>(null);
  const [truth, setTruth] = useState<GroundTruthImage[] | null>(null);
  const [error, setError] = useState('');
  const role = useProjectRole(props.projectId);
  const manager = allows(role, 'manager');

  useEffect(() => {
    document.title = 'Quality · Annostore';
    getProject(props.projectId).then(
      (loaded) => {
        setProject(loaded);
        document.title = `Quality · ${loaded.title} · Annostore`;
      },
      (failure: Error) => (failure instanceof ApiError && failure.status === 404 ? setMissing(true) : setError(failure.message)),
    );
  }, [props.projectId]);
  useEffect(() => {
    if (!manager) return;
    Promise.all([qualityReport(props.projectId), listGroundTruth(props.projectId)]).then(
      ([loadedReport, loadedTruth]) => {
        setReport(loadedReport);
        setTruth(loadedTruth);
      },
      (failure: Error) => setError(failure.message),
    );
  }, [manager, props.projectId]);

  if (missing) return <NotFoundPage session={props.session} onSignOut={props.onSignOut} what="This project" />;
  const gallery = `/projects/${props.projectId}/images`;
  const jobs = `/projects/${props.projectId}/jobs`;
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: project?.title ?? '…', href: gallery }, { label: 'Quality' }]} />
      <main class="jobs-page quality-page">
        <h1>Quality</h1>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {role === undefined && <p role="status">Loading…</p>}
        {role !== undefined && !manager && <p class="role-note">{roleCaption(role, 'only its managers see the quality report and the ground truth.')}</p>}
        {manager && !report && !error && <p role="status">Loading the report…</p>}
        {report && truth && (
          <>
            {report.annotators.length === 0 ? (
              <QualityEmpty gallery={gallery} jobs={jobs} groundTruth={truth.length} />
            ) : (
              <>
                <p class="quiet-text">
                  Each annotator’s submitted honeypots compared with their ground truth, class by class: an object matches a truth of its class at IoU ≥ {report.matchIou}. Precision is the
                  share of the annotator’s objects that match, recall the share of the truths matched.
                </p>
                <AnnotatorTable annotators={report.annotators} />
                {report.annotators.map((a) => (
                  <HoneypotTable key={a.userId} annotator={a} />
                ))}
              </>
            )}
            <GroundTruthList truth={truth} gallery={gallery} />
          </>
        )}
      </main>
    </>
  );
}

function QualityEmpty(props: { gallery: string; jobs: string; groundTruth: number }) {
  return (
    <div class="empty quality-empty">
      <p>No honeypot has been submitted yet. To measure the annotators’ work against a known answer:</p>
      <ol>
        <li>
          In the <Link href={props.gallery}>gallery</Link>, select images whose objects are right and choose <strong>Mark as ground truth</strong>
          {props.groundTruth > 0 ? ` (this project has ${props.groundTruth} already).` : '.'}
        </li>
        <li>
          On the <Link href={props.jobs}>Jobs</Link> page, make jobs with <strong>Honeypots per job</strong> above 0: copies of ground-truth images are hidden among each job’s images.
        </li>
        <li>Once the annotators submit them, their precision, recall and mean IoU are shown here.</li>
      </ol>
    </div>
  );
}

function AnnotatorTable(props: { annotators: Annotator[] }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((before) => {
      const next = new Set(before);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <>
      <h2>Per annotator</h2>
      <div class="table-scroll">
        <table class="figures-table quality-table" aria-label="Quality per annotator">
          <thead>
            <tr>
              <th>Annotator</th>
              <th>Honeypots</th>
              {FIGURE_HEADS.map((head) => (
                <th key={head}>{head}</th>
              ))}
              <th>Classes</th>
            </tr>
          </thead>
          <tbody>
            {props.annotators.map((a) => (
              <Fragment key={a.userId}>
                <tr class="annotator-row">
                  <td>{a.login}</td>
                  <td>{a.honeypots}</td>
                  {figureCells(a)}
                  <td>
                    {a.classes.length > 0 && (
                      <button type="button" class="quiet" aria-expanded={open.has(a.userId)} aria-label={`${classCount(a.classes.length)} of ${a.login}`} onClick={() => toggle(a.userId)}>
                        {classCount(a.classes.length)}
                      </button>
                    )}
                  </td>
                </tr>
                {open.has(a.userId) &&
                  a.classes.map((c) => (
                    <tr key={c.classTitle} class="class-row">
                      <td>
                        <span class="class-of">{c.classTitle}</span>
                      </td>
                      <td>{c.honeypots}</td>
                      {figureCells(c)}
                      <td />
                    </tr>
                  ))}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The honeypots an annotator submitted: the name opens the ground-truth image it copies. */
function HoneypotTable(props: { annotator: Annotator }) {
  const a = props.annotator;
  return (
    <>
      <h2>Honeypots of {a.login}</h2>
      <div class="table-scroll">
        <table class="figures-table honeypot-table" aria-label={`Honeypots of ${a.login}`}>
          <thead>
            <tr>
              <th>Image</th>
              <th>Job</th>
              {FIGURE_HEADS.map((head) => (
                <th key={head}>{head}</th>
              ))}
              <th>Submitted</th>
            </tr>
          </thead>
          <tbody>
            {a.items.map((item) => (
              <tr key={item.imageId}>
                <td>
                  <Link href={`/images/${item.sourceImageId}`} title="The ground-truth image this honeypot copies">
                    {item.name}
                  </Link>
                </td>
                <td>{item.jobId === null ? 'deleted' : `#${item.jobId}`}</td>
                {figureCells(item)}
                <td>{new Date(item.evaluatedAt).toLocaleString('en')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function GroundTruthList(props: { truth: GroundTruthImage[]; gallery: string }) {
  return (
    <>
      <h2>Ground truth</h2>
      {props.truth.length === 0 ? (
        <p class="quiet-text">No image is ground truth yet.</p>
      ) : (
        <>
          <p class="quiet-text">
            {props.truth.length} image{props.truth.length === 1 ? '' : 's'}, their objects frozen when marked. Select images in the <Link href={props.gallery}>gallery</Link> to mark or unmark
            them.
          </p>
          <div class="table-scroll">
            <table class="figures-table ground-truth-table" aria-label="Ground-truth images">
              <thead>
                <tr>
                  <th>Image</th>
                  <th>Objects</th>
                  <th>Marked</th>
                </tr>
              </thead>
              <tbody>
                {props.truth.map((g) => (
                  <tr key={g.imageId}>
                    <td>
                      <Link href={`/images/${g.imageId}`}>{g.name}</Link>
                    </td>
                    <td>{g.objects}</td>
                    <td>{new Date(g.createdAt).toLocaleString('en')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
