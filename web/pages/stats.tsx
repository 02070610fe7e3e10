// A project's statistics, of all its images or of those the gallery's filters find (the same URL
// parameters): images and objects per class and per dataset, objects per image, box area and aspect,
// where each class's objects sit, image sizes. Each chart is an SVG drawn for the eye, with a table
// beside it that says the same for screen readers; a bar and its table row link to the gallery
// filtered to what they count.
import { useEffect, useState } from 'preact/hooks';
import { type ImageFilter, type Project, type ProjectStats, type Session, getProject, getProjectStats } from '../api.ts';
import { Header } from '../components/header.tsx';
import { Link } from '../components/link.tsx';
import { filterFromUrl, filterQuery, narrows } from '../filters.ts';
import { type Location, navigate } from '../router.ts';

interface Props {
  session: Session;
  onSignOut: () => void;
  location: Location;
  projectId: number;
}

interface Bar {
  label: string;
  value: number;
  /** The gallery of what the bar counts; none when no filter says it. */
  href?: string;
  color?: string;
}

const fmt = (n: number) => n.toLocaleString('en');

/** A horizontal bar chart and its table. */
function BarChart(props: { id: string; title: string; unit: string; bars: Bar[]; note?: string }) {
  const max = Math.max(1, ...props.bars.map((b) => b.value));
  const row = 22;
  const label = 130;
  const width = 420;
  return (
    <section class="stats-chart" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.note && <p class="quiet-text">{props.note}</p>}
      <div class="stats-pair">
        {/* The table beside says what the chart shows: the chart is hidden from screen readers. */}
        <svg aria-hidden="true" viewBox={`0 0 ${width} ${props.bars.length * row + 4}`} class="stats-svg">
          {props.bars.map((b, i) => {
            const w = ((width - label - 60) * b.value) / max;
            const bar = (
              <>
                <text x={label - 6} y={i * row + 15} text-anchor="end" class="stats-label">
                  {b.label.length > 18 ? `${b.label.slice(0, 17)}…` : b.label}
                </text>
                <rect x={label} y={i * row + 3} width={Math.max(b.value > 0 ? 2 : 0, w)} height={row - 6} fill={b.color ?? 'var(--accent)'} rx="2" />
                <text x={label + w + 6} y={i * row + 15} class="stats-value">
                  {fmt(b.value)}
                </text>
              </>
            );
            // A bar is clicked with the mouse; the keyboard and screen readers have the table's link.
            const href = b.href;
            return href ? (
              <g key={i} class="stats-bar-link" onClick={() => navigate(href)}>
                {bar}
              </g>
            ) : (
              <g key={i}>{bar}</g>
            );
          })}
        </svg>
        <table class="stats-table">
          <thead>
            <tr>
              <th scope="col">{props.title.split(' per ')[1] ?? 'Bin'}</th>
              <th scope="col">{props.unit}</th>
            </tr>
          </thead>
          <tbody>
            {props.bars.map((b, i) => (
              <tr key={i}>
                <th scope="row">{b.href ? <Link href={b.href}>{b.label}</Link> : b.label}</th>
                <td>{fmt(b.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Where a class's objects sit: a grid × grid heatmap of box centres, and its table. */
function Heatmap(props: { title: string; color: string; cells: number[]; grid: number }) {
  const max = Math.max(1, ...props.cells);
  const size = 22;
  const rows = Array.from({ length: props.grid }, (_, r) => props.cells.slice(r * props.grid, (r + 1) * props.grid));
  return (
    <figure class="stats-heatmap">
      <figcaption>{props.title}</figcaption>
      <div class="stats-pair">
        <svg aria-hidden="true" viewBox={`0 0 ${props.grid * size} ${props.grid * size}`} class="stats-grid">
          {props.cells.map((v, i) => (
            <rect key={i} x={(i % props.grid) * size} y={Math.floor(i / props.grid) * size} width={size - 1} height={size - 1} fill={props.color} fill-opacity={0.08 + (0.92 * v) / max} />
          ))}
        </svg>
        <table class="stats-table compact">
          <caption class="visually-hidden">Objects of {props.title} by where their box centre lies, rows from the top</caption>
          <tbody>
            {rows.map((cells, r) => (
              <tr key={r}>
                {cells.map((v, c) => (
                  <td key={c}>{fmt(v)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

const areaLabel = (edges: number[], i: number) => (i === 0 ? `< ${edges[0]}²` : i === edges.length ? `≥ ${edges[i - 1]}²` : `${edges[i - 1]}²–${edges[i]}²`);
const aspectText = (v: number) => (Number.isInteger(v) ? String(v) : v === 4 / 3 ? '4/3' : String(v));
const aspectLabel = (edges: number[], i: number) => (i === 0 ? `< ${aspectText(edges[0]!)}` : i === edges.length ? `≥ ${aspectText(edges[i - 1]!)}` : `${aspectText(edges[i - 1]!)}–${aspectText(edges[i]!)}`);

export function StatsPage(props: Props) {
  const filter = filterFromUrl(props.location.params, props.projectId);
  const query = filterQuery(filter);
  const [project, setProject] = useState<Project | null>(null);
  const [stats, setStats] = useState<ProjectStats | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    getProject(props.projectId).then((p) => {
      document.title = `Statistics · ${p.title} · Annostore`;
      setProject(p);
    }, (failure: Error) => setError(failure.message));
  }, [props.projectId]);
  useEffect(() => {
    let live = true;
    setStats(null);
    getProjectStats(props.projectId, filter).then((s) => live && setStats(s), (failure: Error) => live && setError(failure.message));
    return () => void (live = false);
  }, [props.projectId, query]);

  const gallery = (extra: Partial<ImageFilter>) => `/projects/${props.projectId}/images${filterQuery({ ...filter, ...extra })}`;
  const trail = [{ label: project?.title ?? '…', href: `/projects/${props.projectId}/images` }, { label: 'Statistics' }];
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={trail} />
      <main class="stats-page">
        <div class="toolbar">
          <h1>Statistics</h1>
          <div class="controls">
            {narrows(filter) && <span class="quiet-text">Of the images the gallery’s filters find.</span>}
            <Link href={gallery({})}>Back to the gallery</Link>
          </div>
        </div>
        <div class="stats-body">
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          {!stats && !error && (
            <p class="loading" role="status">
              Loading…
            </p>
          )}
          {stats && <StatsCharts stats={stats} gallery={gallery} />}
        </div>
      </main>
    </>
  );
}

function StatsCharts(props: { stats: ProjectStats; gallery: (extra: Partial<ImageFilter>) => string }) {
  const { stats, gallery } = props;
  const cap = stats.objectsPerImage.length - 1;
  const edges = stats.area.edges;
  return (
    <>
      <dl class="stats-totals">
        <div>
          <dt>Images</dt>
          <dd>{fmt(stats.images)}</dd>
        </div>
        <div>
          <dt>Objects</dt>
          <dd>{fmt(stats.objects)}</dd>
        </div>
        <div>
          <dt>Images with no objects</dt>
          <dd>
            <Link href={gallery({ maxObjects: 0, minObjects: undefined })}>{fmt(stats.imagesWithoutObjects)}</Link>
          </dd>
        </div>
      </dl>
      <div class="stats-grid-charts">
        <BarChart
          id="chart-classes"
          title="Objects per class"
          unit="Objects"
          bars={stats.classes.map((c) => ({ label: c.title, value: c.objects, color: c.color, href: gallery({ classAny: [c.classId] }) }))}
        />
        <BarChart
          id="chart-class-images"
          title="Images per class"
          unit="Images"
          bars={stats.classes.map((c) => ({ label: c.title, value: c.images, color: c.color, href: gallery({ classAny: [c.classId] }) }))}
        />
        <BarChart
          id="chart-datasets"
          title="Images per dataset"
          unit="Images"
          bars={stats.datasets.map((d) => ({ label: d.title, value: d.images, href: gallery({ datasetId: d.datasetId, projectId: undefined }) }))}
        />
        <BarChart
          id="chart-per-image"
          title="Images per object count"
          unit="Images"
          bars={stats.objectsPerImage.map((v, i) => ({ label: i === cap ? `${i} or more` : String(i), value: v, href: gallery(i === cap ? { minObjects: i, maxObjects: undefined } : { minObjects: i, maxObjects: i }) }))}
        />
        <BarChart
          id="chart-area"
          title="Objects per box area"
          unit="Objects"
          note="Area as the side of a square of that area, in pixels. A bar’s images have objects at or above its lower edge and at or below its upper one."
          bars={stats.area.counts.map((v, i) => ({
            label: areaLabel(edges, i),
            value: v,
            href: gallery({ boxMinArea: i === 0 ? undefined : edges[i - 1]! ** 2, boxMaxArea: i === edges.length ? undefined : edges[i]! ** 2 - 1 }),
          }))}
        />
        <BarChart id="chart-aspect" title="Objects per box aspect" unit="Objects" note="Width ÷ height of the box." bars={stats.aspect.counts.map((v, i) => ({ label: aspectLabel(stats.aspect.edges, i), value: v }))} />
        <BarChart id="chart-sizes" title="Images per size" unit="Images" bars={stats.imageSizes.map((s) => ({ label: `${s.width} × ${s.height}`, value: s.images }))} />
      </div>
      <section class="stats-chart" aria-labelledby="chart-heatmaps">
        <h2 id="chart-heatmaps">Where each class’s objects sit</h2>
        <p class="quiet-text">Box centres on a {stats.grid} × {stats.grid} grid over the image, darker where more.</p>
        <div class="stats-heatmaps">
          {stats.classes.filter((c) => c.objects > 0).map((c) => (
            <Heatmap key={c.classId} title={c.title} color={c.color} cells={c.heatmap} grid={stats.grid} />
          ))}
        </div>
      </section>
    </>
  );
}
