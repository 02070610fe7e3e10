// A project's tags: add one (on objects or on images, with a hotkey and a value type: none, any
// text, any number, one of a list), rename it or change its hotkey, value type or list, delete it
// after being told how many images and objects carry it. Each change is sent under the If-Match of
// the tag as read, so a change made meanwhile elsewhere is not overwritten.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Project, type Session, type Tag, type TagDefinition, changeTag, createTag, deleteTag, getProject, getTag, listTags, tagUsage } from '../api.ts';
import { Header } from '../components/header.tsx';
import { TagForm, VALUE_TYPE_LABELS } from '../components/tag-form.tsx';
import { allows, roleCaption, useProjectRole } from '../project-role.ts';

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** What a delete takes away, said before it is done. */
interface PendingDelete {
  tag: Tag;
  etag: string;
  usage: { images: number; objects?: number };
}

/** The members of `next` that differ from `tag`: a PATCH sends only what changed. */
function changesOf(tag: Tag, next: TagDefinition): Partial<TagDefinition> {
  const change: Partial<TagDefinition> = {};
  if (next.title !== tag.title) change.title = next.title;
  if (next.hotkey !== tag.hotkey) change.hotkey = next.hotkey;
  if (next.valueType !== tag.valueType) change.valueType = next.valueType;
  if (next.valueType === 'oneof_string' && JSON.stringify(next.values) !== JSON.stringify(tag.values)) change.values = next.values;
  return change;
}

export function TagsPage(props: { session: Session; onSignOut: () => void; projectId: number }) {
  const [project, setProject] = useState<Project | null>(null);
  const [tags, setTags] = useState<Tag[] | null>(null);
  const [editing, setEditing] = useState<{ id: number; etag: string } | null>(null);
  const [deleting, setDeleting] = useState<PendingDelete | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  // A project's tags are its managers' to define; everyone sees them.
  const role = useProjectRole(props.projectId);
  const readOnly = !allows(role, 'manager');

  const load = () => listTags(props.projectId).then(setTags, (failure: Error) => setMessage({ text: failure.message, error: true }));
  useEffect(() => {
    getProject(props.projectId).then((p) => {
      setProject(p);
      document.title = `Tags of ${p.title} · Annostore`;
    }, (failure: Error) => setMessage({ text: failure.message, error: true }));
    void load();
  }, [props.projectId]);

  /** Runs a change; a 412 reloads the list and says why. */
  const run = async (work: () => Promise<string>) => {
    setBusy(true);
    setMessage(null);
    try {
      setMessage({ text: await work(), error: false });
      setEditing(null);
      setDeleting(null);
    } catch (failure) {
      const stale = failure instanceof ApiError && failure.status === 412;
      setMessage({ text: stale ? 'Someone changed this tag meanwhile: the list shows it as it is now.' : `Not saved: ${(failure as Error).message}`, error: true });
      if (stale) {
        setEditing(null);
        setDeleting(null);
      }
    } finally {
      setBusy(false);
      void load();
    }
  };

  const startEdit = async (tag: Tag) => {
    setDeleting(null);
    const { etag } = await getTag(tag.id);
    setEditing({ id: tag.id, etag });
  };
  const startDelete = async (tag: Tag) => {
    setEditing(null);
    const [{ etag }, usage] = await Promise.all([getTag(tag.id), tagUsage(tag.id)]);
    setDeleting({ tag, etag, usage });
  };

  const groups: [Tag['scope'], string][] = [
    ['figures', 'Object tags'],
    ['images', 'Image tags'],
  ];
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[...(project ? [{ label: project.title, href: `/projects/${project.id}/images` }] : []), { label: 'Tags' }]} />
      <main class="tags-page">
        <h1>Tags{project ? ` of ${project.title}` : ''}</h1>
        {role !== undefined && readOnly && <p class="role-note quiet-text">{roleCaption(role, 'only its managers add, change or delete tags.')}</p>}
        {message && (
          <p class={message.error ? 'error' : 'quiet-text'} role={message.error ? 'alert' : 'status'}>
            {message.text}
          </p>
        )}
        {!tags && !message && <p role="status">Loading tags…</p>}
        {tags &&
          groups.map(([scope, heading]) => {
            const shown = tags.filter((t) => t.scope === scope);
            return (
              <section key={scope} aria-labelledby={`tags-${scope}`}>
                <h2 id={`tags-${scope}`}>{heading}</h2>
                {shown.length === 0 && <p class="quiet-text">None yet.</p>}
                <ul class="tag-list">
                  {shown.map((t) => (
                    <li key={t.id} class="tag-row">
                      {editing?.id === t.id ? (
                        <TagForm
                          tag={t}
                          idPrefix={`tag-${t.id}`}
                          busy={busy}
                          onCancel={() => setEditing(null)}
                          onSubmit={(next) => {
                            const change = changesOf(t, next);
                            if (Object.keys(change).length === 0) return setEditing(null);
                            void run(async () => `Saved tag "${(await changeTag(t.id, change, editing.etag)).value.title}".`);
                          }}
                        />
                      ) : (
                        <>
                          <div class="tag-summary">
                            <strong class="tag-title">{t.title}</strong>
                            {t.hotkey && <kbd title="hotkey">{t.hotkey}</kbd>}
                            <span class="tag-type">{VALUE_TYPE_LABELS[t.valueType]}</span>
                            {t.values && (
                              <ul class="tag-values" aria-label={`Values of ${t.title}`}>
                                {t.values.map((v) => (
                                  <li key={v} class="chip">
                                    {v}
                                  </li>
                                ))}
                              </ul>
                            )}
                          </div>
                          {!readOnly && (
                            <div class="tag-actions">
                              <button type="button" class="quiet" disabled={busy} aria-label={`Edit ${t.title}`} onClick={() => void startEdit(t)}>
                                Edit
                              </button>
                              <button type="button" class="quiet" disabled={busy} aria-label={`Delete ${t.title}`} onClick={() => void startDelete(t)}>
                                Delete
                              </button>
                            </div>
                          )}
                          {deleting?.tag.id === t.id && (
                            <div class="tag-delete" role="alertdialog" aria-label={`Delete ${t.title}?`}>
                              <p>
                                Delete “{t.title}”? {carriers(deleting.usage)}
                              </p>
                              <button type="button" class="danger" disabled={busy} onClick={() => void run(async () => (await deleteTag(t.id, deleting.etag), `Deleted tag "${t.title}".`))}>
                                Delete tag
                              </button>
                              <button type="button" class="quiet" onClick={() => setDeleting(null)}>
                                Keep it
                              </button>
                            </div>
                          )}
                        </>
                      )}
                    </li>
                  ))}
                </ul>
              </section>
            );
          })}
        {tags && !readOnly && (
          <section aria-labelledby="new-tag">
            <h2 id="new-tag">New tag</h2>
            <TagForm
              key={tags.length}
              idPrefix="new-tag"
              busy={busy}
              onSubmit={(definition) => void run(async () => `Added tag "${(await createTag(props.projectId, definition)).title}".`)}
            />
          </section>
        )}
      </main>
    </>
  );
}

function carriers(usage: PendingDelete['usage']): string {
  if (usage.images === 0) return 'No image or object carries it.';
  const first = usage.objects ?? usage.images;
  const what = usage.objects === undefined ? count(usage.images, 'image', 'images') : `${count(usage.objects, 'object', 'objects')} on ${count(usage.images, 'image', 'images')}`;
  return `${what} ${first === 1 ? 'carries' : 'carry'} it and will lose it.`;
}
