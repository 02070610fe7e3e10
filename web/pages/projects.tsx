// The team's projects: what each holds (datasets, images, objects) and its classes in their colours;
// a new one created, each one's settings a link away.
import { useEffect, useState } from 'preact/hooks';
import { type Project, type Session, listProjects } from '../api.ts';
import { Header } from '../components/header.tsx';
import { ImportForm } from '../components/import-form.tsx';
import { Link } from '../components/link.tsx';
import { NewProjectForm } from '../components/new-project-form.tsx';
import { allows, useProjectRoles } from '../project-role.ts';

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

export function ProjectsPage(props: { session: Session; onSignOut: () => void }) {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState('');
  const [creating, setCreating] = useState(false);
  const readOnly = props.session.key.scope === 'read';
  // Importing into a project, and its settings, are its managers': other projects are not offered.
  const roles = useProjectRoles((projects ?? []).map((p) => p.id));
  const managed = (projects ?? []).filter((p) => allows(roles.get(p.id), 'manager'));

  const load = () => listProjects().then(setProjects, (failure: Error) => setError(failure.message));
  useEffect(() => {
    document.title = 'Projects · Annostore';
    void load();
  }, []);

  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} />
      <main class="projects">
        <div class="projects-head">
          <h1>Projects</h1>
          {!readOnly && !creating && <button type="button" onClick={() => setCreating(true)}>New project</button>}
        </div>
        {creating && <NewProjectForm onCancel={() => setCreating(false)} />}
        {error && <p class="error" role="alert">{error}</p>}
        {!projects && !error && <p role="status">Loading projects…</p>}
        {projects?.length === 0 && (
          <p class="empty-projects">
            {props.session.key.scope === 'read' ? 'No projects yet. A key that may write can import a folder here.' : 'No projects yet. Create one, or choose or drop a folder below to import your first one.'}
          </p>
        )}
        <ul class="project-list">
          {projects?.map((project) => (
            <li key={project.id} class="project-card">
              <h2>
                <Link href={`/projects/${project.id}/images`} title={project.title}>
                  {project.title}
                </Link>
              </h2>
              {project.description && <p class="description">{project.description}</p>}
              {project.counts && (
                <p class="counts">
                  {count(project.counts.datasets, 'dataset', 'datasets')} · {count(project.counts.images, 'image', 'images')} ·{' '}
                  {count(project.counts.objects, 'object', 'objects')}
                </p>
              )}
              <ul class="class-chips" aria-label={`Classes of ${project.title}`}>
                {project.classes?.map((c) => (
                  <li key={c.id} class="chip" title={c.title}>
                    <span class="swatch" style={{ background: c.color }} aria-hidden="true" />
                    <span class="chip-title">{c.title}</span>
                  </li>
                ))}
              </ul>
              <p class="card-links">
                <Link href={`/projects/${project.id}/settings`}>{allows(roles.get(project.id), 'manager') ? 'Settings: datasets and classes' : 'Datasets and classes'}</Link>
                <Link href={`/projects/${project.id}/versions`}>Versions</Link>
              </p>
            </li>
          ))}
        </ul>
        <ImportForm onImported={() => void load()} readOnly={readOnly} projects={managed} />
      </main>
    </>
  );
}
