// One image with its objects: zoom at the cursor, pan, fit; hovering an object highlights its row in
// the list and the other way round; classes can be hidden; ←/→ (or D/F) step through the images of
// the gallery's filters, which the URL carries; `?` lists the shortcuts.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type Annotation, type Image, type ImageClass, type Project, type Session, type Tag, type Tagged, getAnnotation, getImage, getProject, imageFileUrl, listClasses, listImageTags } from '../api.ts';
import { AnnotationLayer } from '../components/annotation-layer.tsx';
import { DetailsEditor } from '../components/details-editor.tsx';
import { Header } from '../components/header.tsx';
import { HelpDialog } from '../components/help-dialog.tsx';
import { Link } from '../components/link.tsx';
import { fitted, useZoomPan, zoomedAt } from '../components/zoom-pan.ts';
import { filterFromUrl, filterQuery } from '../filters.ts';
import { imageListOf } from '../image-list.ts';
import { type Location, navigate } from '../router.ts';

interface Loaded {
  image: Image;
  tagged: Tagged<Annotation>;
  project: Project;
  classes: ImageClass[];
  tags: Tag[];
}

interface Props {
  session: Session;
  onSignOut: () => void;
  location: Location;
  imageId: number;
}

export function ImagePage(props: Props) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let live = true;
    setError('');
    void (async () => {
      const [image, tagged] = await Promise.all([getImage(props.imageId), getAnnotation(props.imageId)]);
      // The project, its classes and tags stay the same while stepping through one gallery.
      const sameProject = loaded?.project.id === image.projectId;
      const [project, classes, tags] = sameProject
        ? [loaded.project, loaded.classes, loaded.tags]
        : await Promise.all([getProject(image.projectId), listClasses(image.projectId), listImageTags(image.projectId)]);
      if (!live) return;
      document.title = `${image.name} · ${project.title} · Annostore`;
      setLoaded({ image, tagged, project, classes, tags });
    })().catch((failure: Error) => live && setError(failure.message));
    return () => void (live = false);
  }, [props.imageId]);

  if (error || !loaded) {
    return (
      <>
        <Header session={props.session} onSignOut={props.onSignOut} />
        <main>{error ? <p class="error" role="alert">{error}</p> : <p role="status">Loading…</p>}</main>
      </>
    );
  }
  const saved = (tagged: Tagged<Annotation>) => {
    // The image's own answer carries the tags' values: ask it again.
    setLoaded({ ...loaded, tagged });
    getImage(loaded.image.id).then((image) => setLoaded((now) => (now && now.image.id === image.id ? { ...now, image } : now)), () => undefined);
  };
  return <Viewer {...props} {...loaded} onSaved={saved} />;
}

function Viewer(props: Props & Loaded & { onSaved: (tagged: Tagged<Annotation>) => void }) {
  const { image, project, classes } = props;
  const annotation = props.tagged.value;
  const filter = useMemo(() => filterFromUrl(props.location.params, project.id), [props.location.params.toString(), project.id]);
  const query = filterQuery(filter, { withProject: true });
  const classByTitle = useMemo(() => new Map(classes.map((c) => [c.title, c])), [classes]);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [hovered, setHovered] = useState<number | null>(null);
  const [opacity, setOpacity] = useState(0.35);
  const [help, setHelp] = useState(false);
  const [position, setPosition] = useState<{ index: number; total: number | null; prev?: number; next?: number } | null>(null);

  // Where the image stands among the gallery's images, and its neighbours.
  useEffect(() => {
    let live = true;
    // Until known, the keys step nowhere (rather than from the image before).
    setPosition(null);
    const list = imageListOf(filter);
    void (async () => {
      const index = await list.indexOf(image.id);
      if (index < 0) return live && setPosition(null);
      await list.loadUntil(index + 2);
      if (live) setPosition({ index, total: list.total, prev: list.items[index - 1]?.id, next: list.items[index + 1]?.id });
    })().catch(() => undefined);
    return () => void (live = false);
  }, [image.id, query]);

  const frame = useRef<HTMLDivElement>(null);
  const [frameSize, setFrameSize] = useState({ width: 0, height: 0 });
  const { view, setView, handlers } = useZoomPan({ scale: 1, x: 0, y: 0 });
  const fit = () => setView(fitted(frameSize, image));
  useLayoutEffect(() => {
    const element = frame.current!;
    const observer = new ResizeObserver(() => setFrameSize({ width: element.clientWidth, height: element.clientHeight }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    if (frameSize.width > 0) fit();
  }, [image.id, frameSize.width > 0]);

  const go = (id: number | undefined) => {
    if (id !== undefined) navigate(`/images/${id}${query}`);
  };
  // The keys act on what the page shows now: the handler is replaced at every render, and the one
  // listener calls whichever is current. (A listener re-added by an effect runs after the paint, so a
  // key pressed right after the position appears would reach the handler of the render before.)
  const onKey = useRef<(event: KeyboardEvent) => void>(() => undefined);
  onKey.current = (event: KeyboardEvent) => {
    if (image.id !== props.imageId) return; // the next image is on its way
    if (takesKeys(event.target) || event.metaKey || event.ctrlKey || event.altKey) return;
    const key = event.key;
    if (key === 'ArrowLeft' || key === 'd' || key === 'D') go(position?.prev);
    else if (key === 'ArrowRight' || key === 'f' || key === 'F') go(position?.next);
    else if (key === '?') setHelp(true);
    else if (key === '0') fit();
    else if (key === '+' || key === '=') setView((v) => zoomedAt(v, 1.25, frameSize.width / 2, frameSize.height / 2));
    else if (key === '-' || key === '_') setView((v) => zoomedAt(v, 0.8, frameSize.width / 2, frameSize.height / 2));
    else return;
    event.preventDefault();
  };
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKey.current(event);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  const toggle = (title: string) =>
    setHidden((before) => {
      const after = new Set(before);
      if (!after.delete(title)) after.add(title);
      return after;
    });
  const usedClasses = classes.filter((c) => annotation.objects.some((o) => o.classTitle === c.title));
  const galleryHref = `/projects/${project.id}/images${filterQuery({ ...filter, projectId: undefined })}`;

  return (
    <>
      <Header
        session={props.session}
        onSignOut={props.onSignOut}
        trail={
          <ol>
            <li>
              <Link href="/">Projects</Link>
            </li>
            <li>
              <Link href={galleryHref}>{project.title}</Link>
            </li>
            <li>
              <span aria-current="page">{image.name}</span>
            </li>
          </ol>
        }
      />
      <div class="viewer">
        <main class="stage-column">
          <div class="toolbar">
            <h1 class="image-name">{image.name}</h1>
            <div class="controls">
              <button type="button" onClick={() => go(position?.prev)} disabled={position?.prev === undefined} aria-keyshortcuts="ArrowLeft D">
                ← Previous
              </button>
              <span class="position" role="status">
                {position ? `${position.index + 1} of ${position.total?.toLocaleString('en') ?? '…'}` : ''}
              </span>
              <button type="button" onClick={() => go(position?.next)} disabled={position?.next === undefined} aria-keyshortcuts="ArrowRight F">
                Next →
              </button>
              <button type="button" onClick={fit} aria-keyshortcuts="0">
                Fit
              </button>
              <span class="zoom" aria-label="Zoom">
                {Math.round(view.scale * 100)}%
              </span>
              <label class="opacity">
                Fill
                <input type="range" min={0} max={1} step={0.05} value={opacity} onInput={(e) => setOpacity(Number((e.currentTarget as HTMLInputElement).value))} />
              </label>
              <button type="button" onClick={() => setHelp(true)} aria-keyshortcuts="?" aria-label="Keyboard shortcuts">
                ?
              </button>
            </div>
          </div>
          <div class="stage" ref={frame} {...handlers}>
            <svg width={frameSize.width} height={frameSize.height} role="img" aria-label={`${image.name}: ${image.width} × ${image.height} pixels, ${annotation.objects.length} objects`}>
              <g transform={`translate(${view.x} ${view.y}) scale(${view.scale})`}>
                <image href={imageFileUrl(image.id)} width={image.width} height={image.height} />
                <AnnotationLayer objects={annotation.objects} classes={classByTitle} hidden={hidden} hovered={hovered} onHover={setHovered} scale={view.scale} opacity={opacity} idPrefix="view" />
              </g>
            </svg>
          </div>
        </main>
        <aside class="details" aria-label="Objects and details">
          <section>
            <h2>Classes</h2>
            <ul class="toggles">
              {usedClasses.map((c) => (
                <li key={c.id}>
                  <label>
                    <input type="checkbox" checked={!hidden.has(c.title)} onChange={() => toggle(c.title)} />
                    <span class="swatch" style={{ background: c.color }} aria-hidden="true" />
                    {c.title}
                  </label>
                </li>
              ))}
            </ul>
          </section>
          <section>
            <h2>Objects ({annotation.objects.length})</h2>
            <ul class="object-list">
              {annotation.objects.map((o) => (
                <li
                  key={o.id}
                  class={hovered === o.id ? 'hovered' : undefined}
                  data-object-id={o.id}
                  onPointerEnter={() => setHovered(o.id)}
                  onPointerLeave={() => setHovered(null)}
                  onFocusIn={() => setHovered(o.id)}
                  onFocusOut={() => setHovered(null)}
                  tabIndex={0}
                >
                  <span class="swatch" style={{ background: classByTitle.get(o.classTitle)?.color ?? '#ff00ff' }} aria-hidden="true" />
                  <span>{o.classTitle}</span>
                  <span class="object-id">#{o.id}</span>
                  {o.tags.length > 0 && <span class="object-tags">{o.tags.join(', ')}</span>}
                </li>
              ))}
            </ul>
          </section>
          <section>
            <h2>Image</h2>
            <dl class="facts">
              <dt>Size</dt>
              <dd>
                {image.width} × {image.height}, {(image.size / 1024).toFixed(0)} KiB
              </dd>
              <dt>Tags</dt>
              <dd>{image.tags.length ? image.tags.map((t) => (t.value === null ? t.title : `${t.title}: ${t.value}`)).join(', ') : 'none'}</dd>
            </dl>
            <DetailsEditor imageId={image.id} annotation={props.tagged} tags={props.tags} readOnly={props.session.key.scope === 'read'} onSaved={props.onSaved} />
          </section>
        </aside>
      </div>
      <HelpDialog open={help} onClose={() => setHelp(false)} />
    </>
  );
}

/** A field where the keys type text or move a value: the shortcuts leave them be. */
function takesKeys(target: EventTarget | null): boolean {
  if (target instanceof HTMLTextAreaElement || (target instanceof HTMLElement && target.isContentEditable)) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button'].includes(target.type);
}
