// One image with its objects: zoom at the cursor, pan, fit; hovering an object highlights its row in
// the list and the other way round; classes can be hidden; ←/→ (or D/F) step through the images of
// the gallery's filters, which the URL carries; `?` lists the shortcuts. An annotator of the project
// (or above) also edits the annotation here (tools, selection, undo, save under If-Match); a viewer
// only looks. New classes and rejected predictions are the project's managers' (docs/web.md#roles).
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type Annotation, ApiError, type Image, type ImageClass, type Project, type ProjectRole, type Session, type Tag, type SegmentModelChoice, type Tagged, getAnnotation, getImage, getProject, getProjectRole, imageFileUrl, listClasses, listImageTags, listObjectTags, listSegmentModels } from '../api.ts';
import { AnnotationLayer } from '../components/annotation-layer.tsx';
import { ConflictDialog } from '../components/conflict-dialog.tsx';
import { DetailsEditor } from '../components/details-editor.tsx';
import { EditorOverlay, type Tool, shapeOfClass } from '../components/editor-overlay.tsx';
import { EditorToolbar, TOOLS } from '../components/editor-toolbar.tsx';
import { Header } from '../components/header.tsx';
import { NotFoundPage } from './not-found.tsx';
import { HelpDialog } from '../components/help-dialog.tsx';
import { NewClassDialog } from '../components/new-class-dialog.tsx';
import { ImageFields } from '../components/image-fields.tsx';
import { ObjectList } from '../components/object-list.tsx';
import { ObjectPanel } from '../components/object-panel.tsx';
import { PredictionLayer } from '../components/prediction-layer.tsx';
import { PredictionPanel } from '../components/prediction-panel.tsx';
import { SimilarImages } from '../components/similar-images.tsx';
import { RevisionBanner, RevisionHistory, type RevisionPreview } from '../components/revision-history.tsx';
import { type AnnotationEditor, useAnnotationEditor } from '../components/use-annotation-editor.ts';
import { usePredictions } from '../components/use-predictions.ts';
import { type View, fitted, useZoomPan, zoomedAt } from '../components/zoom-pan.ts';
import { useJobReview } from '../components/job-bar.tsx';
import { removeObject, removeVertex, setImageTags, setObjectTags, toggled } from '../editor/document.ts';
import type { Box, Shape } from '../editor/geometry.ts';
import { filterFromUrl, filterKey, filterQuery, positive } from '../filters.ts';
import { rememberSeen } from '../gallery-place.ts';
import { imageListOf, knownProjectOf } from '../image-list.ts';
import { allows, roleCaption } from '../project-role.ts';
import { type Location, navigate, setLeaveCheck } from '../router.ts';

interface Loaded {
  image: Image;
  tagged: Tagged<Annotation>;
  project: Project;
  classes: ImageClass[];
  tags: Tag[];
  objectTags: Tag[];
  /** The caller's role in the image's project. */
  role: ProjectRole;
}

/** What the view needs of the image's project. */
type ProjectParts = Pick<Loaded, 'project' | 'classes' | 'tags' | 'objectTags' | 'role'>;
const projectPartsOf = ({ project, classes, tags, objectTags, role }: Loaded): ProjectParts => ({ project, classes, tags, objectTags, role });
async function projectParts(projectId: number): Promise<ProjectParts> {
  const [project, classes, tags, objectTags, role] = await Promise.all([getProject(projectId), listClasses(projectId), listImageTags(projectId), listObjectTags(projectId), getProjectRole(projectId)]);
  return { project, classes, tags, objectTags, role };
}

interface Props {
  session: Session;
  onSignOut: () => void;
  location: Location;
  imageId: number;
}


/** Where this browser keeps the segment tool's chosen model. */
const SEGMENT_MODEL_KEY = 'annostore.segmentModel';
export function ImagePage(props: Props) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState('');
  const [missing, setMissing] = useState(false);

  useEffect(() => {
    let live = true;
    setError('');
    setMissing(false);
    void (async () => {
      // The project, its classes and tags stay the same while stepping through one gallery. Where the
      // project is known before the image's answer (the one shown, the URL's, the gallery's list), they
      // are asked for alongside the image; a wrong guess only costs asking again.
      const guess = loaded?.project.id ?? positive(props.location.params.get('project')) ?? knownProjectOf(props.imageId);
      const early = guess === undefined ? undefined : loaded?.project.id === guess ? Promise.resolve(projectPartsOf(loaded)) : projectParts(guess);
      early?.catch(() => undefined); // awaited only when the guess was right
      const [image, tagged] = await Promise.all([getImage(props.imageId), getAnnotation(props.imageId)]);
      const { project, classes, tags, objectTags, role } = await (guess === image.projectId && early ? early : projectParts(image.projectId));
      if (!live) return;
      document.title = `${image.name} · ${project.title} · Annostore`;
      setLoaded({ image, tagged, project, classes, tags, objectTags, role });
    })().catch((failure: Error) => live && (failure instanceof ApiError && failure.status === 404 ? setMissing(true) : setError(failure.message)));
    return () => void (live = false);
  }, [props.imageId]);

  if (missing) {
    const projectId = positive(props.location.params.get('project'));
    const back = projectId ? { href: `/projects/${projectId}/images`, label: 'Back to the gallery' } : undefined;
    return <NotFoundPage session={props.session} onSignOut={props.onSignOut} what="This image" back={back} />;
  }

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
  // A class made from the editor joins the project's list at once.
  const classCreated = (created: ImageClass) => setLoaded((now) => now && { ...now, classes: [...now.classes, created] });
  // A new image is a new editor: its history starts with it.
  return <Viewer key={loaded.image.id} {...props} {...loaded} onSaved={saved} onClassCreated={classCreated} />;
}

/**
 * The part of the image (pixels) whose objects are drawn: what the frame shows, rounded out to steps
 * of about a quarter of a screen, so that a pan redraws the list only when it crosses a step (and a
 * shape coming into view is already there).
 */
function cullBox(view: View, frame: { width: number; height: number }): Box {
  const span = Math.max(frame.width, frame.height, 1) / view.scale;
  const step = 2 ** Math.round(Math.log2(span / 4));
  const left = -view.x / view.scale;
  const top = -view.y / view.scale;
  return {
    left: Math.floor(left / step) * step - step / 2,
    top: Math.floor(top / step) * step - step / 2,
    right: Math.ceil((left + frame.width / view.scale) / step) * step + step / 2,
    bottom: Math.ceil((top + frame.height / view.scale) / step) * step + step / 2,
  };
}

function Viewer(props: Props & Loaded & { onSaved: (tagged: Tagged<Annotation>) => void; onClassCreated: (created: ImageClass) => void }) {
  const { image, project, classes } = props;
  // The role of the key in use decides: a read key is a viewer at most.
  const canWrite = allows(props.role, 'annotator');
  const canManage = allows(props.role, 'manager');
  const editor = useAnnotationEditor(image.id, props.tagged, props.onSaved);
  const annotation = props.tagged.value;
  // A revision previewed from the history is drawn instead, read-only, until closed.
  const [preview, setPreview] = useState<RevisionPreview | null>(null);
  const objects = preview ? preview.annotation.objects : canWrite ? editor.doc.objects : annotation.objects;
  const editing = canWrite && !preview;
  const filter = useMemo(() => filterFromUrl(props.location.params, project.id), [props.location.params.toString(), project.id]);
  const query = filterQuery(filter, { withProject: true });
  const classByTitle = useMemo(() => new Map(classes.map((c) => [c.title, c])), [classes]);
  const shapeOf = useCallback((title: string): Shape | undefined => shapeOfClass(classByTitle, title), [classByTitle]);
  const predictions = usePredictions(image.id, editor, shapeOf);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [hovered, setHovered] = useState<number | null>(null);
  const [opacity, setOpacity] = useState(0.35);
  const [help, setHelp] = useState(false);
  const [position, setPosition] = useState<{ index: number; total: number | null; prev?: number; next?: number } | null>(null);
  const [tool, setTool] = useState<Tool>('select');
  const [classTitle, setClassTitle] = useState<string | null>(classes[0]?.title ?? null);
  const [brushRadius, setBrushRadius] = useState(12);
  const [tolerance, setTolerance] = useState(1);
  // The segment tool's models, read when the tool is first chosen; the choice is kept in this browser.
  const [segmentModels, setSegmentModels] = useState<SegmentModelChoice[]>([]);
  const [segmentModel, setSegmentModelState] = useState<string | null>(() => localStorage.getItem(SEGMENT_MODEL_KEY));
  const setSegmentModel = (model: string | null) => {
    if (model) localStorage.setItem(SEGMENT_MODEL_KEY, model);
    else localStorage.removeItem(SEGMENT_MODEL_KEY);
    setSegmentModelState(model);
  };
  useEffect(() => {
    if (tool !== 'segment' || segmentModels.length) return;
    listSegmentModels().then((models) => {
      setSegmentModels(models);
      // A model no longer offered (deleted, new weights) gives way to the default.
      setSegmentModelState((chosen) => (chosen && !models.some((m) => m.model === chosen) ? null : chosen));
    }, () => undefined);
  }, [tool]);
  // A tool whose shape no class has: the dialog that offers to create one is open.
  const [missing, setMissing] = useState<{ shape: ImageClass['shape']; tool: Tool; label: string } | null>(null);

  // Where the image stands among the gallery's images, and its neighbours.
  useEffect(() => {
    let live = true;
    // Until known, the keys step nowhere (rather than from the image before).
    setPosition(null);
    const list = imageListOf(filter);
    void (async () => {
      const index = await list.indexOf(image.id);
      if (index < 0) return live && setPosition(null);
      await list.loadAround(index);
      if (live) setPosition({ index, total: list.total, prev: list.items[index - 1]?.id, next: list.items[index + 1]?.id });
    })().catch(() => undefined);
    return () => void (live = false);
  }, [image.id, query]);

  // Back in the gallery, this image is in view.
  useEffect(() => rememberSeen(filterKey(filter), image.id), [image.id, query]);

  // Unsaved changes are not lost by a link, a key, the back button or closing the tab.
  const editorNow = useRef<AnnotationEditor>(editor);
  editorNow.current = editor;
  useEffect(() => {
    if (!canWrite) return;
    setLeaveCheck(() => {
      if (!editorNow.current.isDirty()) return true;
      const leave = window.confirm('This image has unsaved changes. Leave without saving them?');
      if (leave) editorNow.current.abandon();
      return leave;
    });
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (editorNow.current.isDirty()) event.preventDefault();
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      setLeaveCheck(null);
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, []);

  const frame = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const group = useRef<SVGGElement>(null);
  const overlayKeys = useRef<(key: string) => boolean>(() => false);
  const [frameSize, setFrameSize] = useState({ width: 0, height: 0 });
  const { view, setView, handlers } = useZoomPan({ scale: 1, x: 0, y: 0 });
  const review = useJobReview(positive(props.location.params.get('job')), image.id, props.session, props.role);
  // A click on the image pins an issue while a rejection is written: the click's point in image pixels.
  const pinAt = (event: MouseEvent) => {
    const matrix = group.current?.getScreenCTM();
    if (!matrix) return;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    if (point.x >= 0 && point.y >= 0 && point.x <= image.width && point.y <= image.height) review.pin(point.x, point.y);
  };
  const fit = () => setView(fitted(frameSize, image));
  // The stage is measured before the first paint and the view fitted in the same update, so the
  // shapes (drawn only once the size is known) are rendered once, already fitted. The observer then
  // follows later changes of the stage's size.
  useLayoutEffect(() => {
    const element = frame.current!;
    const measure = () => ({ width: element.clientWidth, height: element.clientHeight });
    const first = measure();
    setFrameSize(first);
    // A stage not laid out yet (no size) is fitted when it gets one.
    let fittedOnce = first.width > 0;
    if (fittedOnce) setView(fitted(first, image));
    const observer = new ResizeObserver(() => {
      const now = measure();
      if (!fittedOnce && now.width > 0) {
        fittedOnce = true;
        setView(fitted(now, image));
      }
      setFrameSize((before) => (before.width === now.width && before.height === now.height ? before : now));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const culled = cullBox(view, frameSize);
  // While the whole image is in the drawn box (at fit, or zoomed out) nothing is culled, and a pan
  // leaves the layer alone instead of re-rendering it at each step of the box.
  const whole = culled.left <= 0 && culled.top <= 0 && culled.right >= image.width && culled.bottom >= image.height;
  const within = useMemo(() => (whole ? undefined : culled), [whole, culled.left, culled.top, culled.right, culled.bottom]);

  const go = (id: number | undefined) => {
    // One history entry for the walk: Back returns to the gallery, not to the image before.
    if (id !== undefined) navigate(`/images/${id}${query}`, { replace: true });
  };

  /** Picks a tool; a drawing tool takes a class of its shape (the current one if it fits). */
  const pickTool = (next: Tool) => {
    // The segment tool makes polygons or bitmaps: the current class if it is either, else the first that is.
    if (next === 'segment' && !['polygon', 'bitmap'].includes(shapeOf(classTitle ?? '') ?? '')) {
      const fitting = classes.find((c) => c.shape === 'polygon') ?? classes.find((c) => c.shape === 'bitmap');
      if (!fitting) {
        setMissing({ shape: 'polygon', tool: next, label: 'Segment' });
        return;
      }
      setClassTitle(fitting.title);
    }
    const shape = TOOLS.find((t) => t.tool === next)?.shape;
    if (shape && shapeOf(classTitle ?? '') !== shape) {
      const fitting = classes.find((c) => c.shape === shape);
      if (!fitting) {
        setMissing({ shape: shape as ImageClass['shape'], tool: next, label: TOOLS.find((t) => t.tool === next)!.label });
        return;
      }
      setClassTitle(fitting.title);
    }
    if (next === 'hole' && !(editor.selected && shapeOf(editor.doc.objects.find((o) => o.key === editor.selected!.key)?.classTitle ?? '') === 'polygon')) {
      editor.setNotice({ text: 'Select a polygon first, then draw its hole.', error: true });
      return;
    }
    setTool(next);
  };
  /** Picks a class; the tool follows its shape. */
  const pickClass = (title: string) => {
    setClassTitle(title);
    const shape = shapeOf(title);
    if (tool === 'eraser' && shape === 'bitmap') return;
    if (tool === 'segment' && (shape === 'polygon' || shape === 'bitmap')) return;
    const drawing = TOOLS.find((t) => t.shape === shape);
    if (drawing) setTool(drawing.tool);
  };

  const selectedObject = editor.selected ? editor.doc.objects.find((o) => o.key === editor.selected!.key) : undefined;

  /** A tag's hotkey toggles it on the selected object (object tags) or on the image (image tags). */
  const tagHotkey = (key: string): boolean => {
    const matches = (t: Tag) => t.hotkey !== '' && t.hotkey.toLowerCase() === key.toLowerCase();
    const objectTag = selectedObject && props.objectTags.find(matches);
    if (objectTag && selectedObject) {
      const k = selectedObject.key;
      editor.edit((doc) => setObjectTags(doc, k, toggled(selectedObject.tags, objectTag.title, props.objectTags.map((t) => t.title))));
      return true;
    }
    const imageTag = props.tags.find(matches);
    if (imageTag) {
      editor.edit((doc) => setImageTags(doc, toggled(doc.tags, imageTag.title, props.tags.map((t) => t.title))));
      return true;
    }
    return false;
  };

  /** The editor's keys; true when one was used. */
  const editorKey = (event: KeyboardEvent): boolean => {
    const key = event.key;
    const command = event.ctrlKey || event.metaKey;
    if (command) {
      const lower = key.toLowerCase();
      if (lower === 'z' && event.shiftKey) editor.redo();
      else if (lower === 'z') editor.undo();
      else if (lower === 'y') editor.redo();
      else if (lower === 's') void editor.save();
      else return false;
      return true;
    }
    if (event.altKey) return false;
    if (overlayKeys.current(key)) return true;
    if (key === 'Escape') {
      if (editor.selected) editor.select(null);
      else setTool('select');
      return true;
    }
    if ((key === 'Delete' || key === 'Backspace') && selectedObject) {
      const k = selectedObject.key;
      const vertex = editor.selected?.vertex;
      const shape = shapeOf(selectedObject.classTitle);
      if (vertex && (shape === 'polygon' || shape === 'line')) editor.edit((doc) => removeVertex(doc, k, shape, vertex.ring, vertex.index), { key: k });
      else editor.edit((doc) => removeObject(doc, k), null);
      return true;
    }
    if (/^[1-9]$/.test(key)) {
      const picked = classes[Number(key) - 1];
      if (picked) pickClass(picked.title);
      return true;
    }
    if (tagHotkey(key)) return true;
    const toolOfKey = TOOLS.find((t) => t.key === key.toUpperCase());
    if (toolOfKey) {
      pickTool(toolOfKey.tool);
      return true;
    }
    if (key === '[' || key === ']') {
      setBrushRadius((r) => Math.min(200, Math.max(1, Math.round(r * (key === ']' ? 1.25 : 0.8)))));
      return true;
    }
    return false;
  };

  // The keys act on what the page shows now: the handler is replaced at every render, and the one
  // listener calls whichever is current. (A listener re-added by an effect runs after the paint, so a
  // key pressed right after the position appears would reach the handler of the render before.)
  const onKey = useRef<(event: KeyboardEvent) => void>(() => undefined);
  onKey.current = (event: KeyboardEvent) => {
    if (image.id !== props.imageId) return; // the next image is on its way
    if (takesKeys(event.target) || (event.target instanceof HTMLElement && event.target.closest('dialog'))) return;
    if (preview && event.key === 'Escape') {
      setPreview(null);
      event.preventDefault();
      return;
    }
    if (editing && editorKey(event)) {
      event.preventDefault();
      return;
    }
    if (event.metaKey || event.ctrlKey || event.altKey) return;
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
  const usedClasses = classes.filter((c) => objects.some((o) => o.classTitle === c.title));
  const galleryHref = `/projects/${project.id}/images${filterQuery({ ...filter, projectId: undefined })}`;
  const selectRow = useCallback((key: number) => {
    editorNow.current.select({ key });
    setTool('select');
  }, []);

  return (
    <>
      <Header
        session={props.session}
        onSignOut={props.onSignOut}
        trail={[{ label: project.title, href: galleryHref }, { label: image.name }]}
      />
      <div class="viewer">
        <main class="stage-column">
          <div class="toolbar">
            <h1 class="image-name" title={image.name}>
              {image.name}
            </h1>
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
          {!canWrite && <p class="role-note quiet-text">{roleCaption(props.role, 'the annotation is read-only here.')}</p>}
          {canWrite && (
            <EditorToolbar
              tool={tool}
              onTool={pickTool}
              classes={classes}
              classTitle={classTitle}
              onClass={pickClass}
              brushRadius={brushRadius}
              onBrushRadius={setBrushRadius}
              tolerance={tolerance}
              onTolerance={setTolerance}
              segmentModels={segmentModels}
              segmentModel={segmentModel}
              onSegmentModel={setSegmentModel}
              canUndo={editor.canUndo}
              canRedo={editor.canRedo}
              onUndo={editor.undo}
              onRedo={editor.redo}
              dirty={editor.dirty}
              saving={editor.saving}
              onSave={() => void editor.save()}
              notice={editor.notice}
              onMissingShape={(shape, label) => setMissing({ shape, label, tool: TOOLS.find((t) => t.label === label)!.tool })}
            />
          )}
          {review.bar}
          <div class="stage" ref={frame} data-tool={editing ? tool : undefined} data-pinning={review.pinning ? 'true' : undefined} {...handlers} onClickCapture={review.pinning ? pinAt : undefined}>
            {preview && (
              <RevisionBanner
                imageId={image.id}
                preview={preview}
                me={{ keyId: props.session.key.id, userId: props.session.user.id }}
                etag={props.tagged.etag}
                canRestore={canWrite}
                blocked={editor.dirty ? 'Save or undo your changes first.' : null}
                onClose={() => setPreview(null)}
                onRestored={(answer) => {
                  setPreview(null);
                  editor.loadRestored(answer);
                }}
              />
            )}
            {editing && editor.draft && <DraftOffer savedAt={editor.draft.savedAt} onRestore={editor.restoreDraft} onDiscard={editor.discardDraft} />}
            <svg ref={svg} width={frameSize.width} height={frameSize.height} role="img" aria-label={`${image.name}: ${image.width} × ${image.height} pixels, ${objects.length} objects`}>
              <g ref={group} transform={`translate(${view.x} ${view.y}) scale(${view.scale})`}>
                <image href={imageFileUrl(image.id)} width={image.width} height={image.height} />
                {frameSize.width > 0 && <AnnotationLayer objects={objects} classes={classByTitle} hidden={hidden} hovered={hovered} onHover={setHovered} opacity={opacity} idPrefix="view" within={within} omit={editing ? editor.selected?.key : null} />}
                {review.layer(view.scale)}
                {predictions.model !== null && !preview && <PredictionLayer predictions={predictions.shown} classes={classByTitle} focused={predictions.focused} />}
                {editing && (
                  <EditorOverlay
                    doc={editor.doc}
                    selected={editor.selected}
                    tool={tool}
                    classTitle={classTitle}
                    classes={classByTitle}
                    hidden={hidden}
                    scale={view.scale}
                    opacity={opacity}
                    brushRadius={brushRadius}
                    imageId={image.id}
                    tolerance={tolerance}
                    segmentModel={segmentModel}
                    svg={svg}
                    group={group}
                    onEdit={editor.edit}
                    onSelect={editor.select}
                    onNotice={(text) => editor.setNotice({ text, error: true })}
                    onStatus={(text) => editor.setNotice({ text, error: false })}
                    keys={overlayKeys}
                  />
                )}
              </g>
            </svg>
          </div>
        </main>
        <aside class="details" aria-label="Objects and details">
          {editing && selectedObject && (
            <ObjectPanel
              key={selectedObject.key}
              object={selectedObject}
              vertex={editor.selected?.vertex}
              classes={classes}
              shapeOf={shapeOf}
              tags={props.objectTags}
              problem={editor.problems.get(selectedObject.key)}
              onEdit={editor.edit}
            />
          )}
          {predictions.model !== null && (
            <PredictionPanel
              models={predictions.models}
              model={predictions.model}
              onModel={predictions.setModel}
              threshold={predictions.threshold}
              onThreshold={predictions.setThreshold}
              shown={predictions.shown}
              classes={classByTitle}
              canWrite={canWrite}
              canReject={canManage}
              busy={predictions.busy}
              onAccept={predictions.accept}
              onReject={predictions.reject}
              focused={predictions.focused}
              onFocus={predictions.setFocused}
            />
          )}
          <section>
            <h2>Classes</h2>
            <ul class="toggles">
              {usedClasses.map((c) => (
                <li key={c.id}>
                  <label title={c.title}>
                    <input type="checkbox" checked={!hidden.has(c.title)} onChange={() => toggle(c.title)} />
                    <span class="swatch" style={{ background: c.color }} aria-hidden="true" />
                    <span class="toggle-title">{c.title}</span>
                  </label>
                </li>
              ))}
            </ul>
          </section>
          <section>
            <h2 id="objects-title">Objects ({objects.length})</h2>
            <ObjectList labelledBy="objects-title" objects={objects} classes={classByTitle} hovered={hovered} onHover={setHovered} selected={editing ? (editor.selected?.key ?? null) : undefined} onSelect={editing ? selectRow : undefined} problems={editing ? editor.problems : undefined} />
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
            {canWrite ? (
              <ImageFields description={editor.doc.description} tags={editor.doc.tags} tagValues={editor.doc.tagValues} projectTags={props.tags} onEdit={editor.edit} />
            ) : (
              <DetailsEditor imageId={image.id} annotation={props.tagged} tags={props.tags} readOnly={true} onSaved={props.onSaved} />
            )}
          </section>
          <section>
            <RevisionHistory imageId={image.id} me={{ keyId: props.session.key.id, userId: props.session.user.id }} etag={props.tagged.etag} preview={preview} onPreview={setPreview} />
          </section>
          <SimilarImages imageId={image.id} />
        </aside>
      </div>
      <HelpDialog open={help} onClose={() => setHelp(false)} editing={canWrite} />
      {canWrite && (
        <NewClassDialog
          shape={missing?.shape ?? null}
          tool={missing?.label ?? ''}
          projectId={project.id}
          classes={classes}
          mayCreate={canManage}
          onClose={() => setMissing(null)}
          onCreated={(created) => {
            props.onClassCreated(created);
            setClassTitle(created.title);
            if (missing) setTool(missing.tool);
            setMissing(null);
          }}
        />
      )}
      {canWrite && (
        <ConflictDialog
          open={editor.conflict !== null}
          imageUrl={imageFileUrl(image.id)}
          theirs={editor.conflict?.value ?? null}
          mine={editor.doc}
          classes={classByTitle}
          saving={editor.saving}
          onKeepMine={editor.keepMine}
          onReloadTheirs={editor.reloadTheirs}
          onClose={editor.closeConflict}
        />
      )}
    </>
  );
}

/** Over the stage (which it does not move): a draft of this image kept by the browser, to take back or drop. */
function DraftOffer(props: { savedAt: number; onRestore: () => void; onDiscard: () => void }) {
  const when = new Date(props.savedAt);
  const today = when.toDateString() === new Date().toDateString();
  const time = today ? when.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : when.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  const stop = (event: Event) => event.stopPropagation();
  return (
    <div class="draft-offer" role="region" aria-label="Unsaved changes kept" onPointerDown={stop} onWheel={stop}>
      <span>Restore unsaved changes from {time}?</span>
      <button type="button" onClick={props.onRestore}>
        Restore
      </button>
      <button type="button" class="quiet" onClick={props.onDiscard}>
        Discard
      </button>
    </div>
  );
}

/** A field where the keys type text or move a value: the shortcuts leave them be. */
function takesKeys(target: EventTarget | null): boolean {
  if (target instanceof HTMLTextAreaElement || (target instanceof HTMLElement && target.isContentEditable)) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button'].includes(target.type);
}
