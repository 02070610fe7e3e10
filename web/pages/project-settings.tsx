// A project's settings: its title and description, its datasets and its classes (the project's
// schema), each created, renamed or deleted here; a delete says first what goes with it. All of it is
// the project's managers', who also give its members their roles; anyone else only reads.
import { useEffect, useState } from 'preact/hooks';
import { type Dataset, type ImageClass, type Project, type Session, type Tagged, listClasses, listDatasets, readProject } from '../api.ts';
import { ClassSettings } from '../components/class-settings.tsx';
import { DatasetSettings } from '../components/dataset-settings.tsx';
import { Header } from '../components/header.tsx';
import { ProjectDetails } from '../components/project-details.tsx';
import { ProjectMembersPanel } from '../components/project-members.tsx';
import { allows, roleCaption, useProjectRole } from '../project-role.ts';
import '../schema.css';

interface Loaded {
  project: Tagged<Project>;
  datasets: Dataset[];
  classes: ImageClass[];
}

export function ProjectSettingsPage(props: { session: Session; onSignOut: () => void; projectId: number }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState('');
  const [generation, setGeneration] = useState(0);
  const reload = () => setGeneration((n) => n + 1);

  useEffect(() => {
    let live = true;
    Promise.all([readProject(props.projectId), listDatasets(props.projectId), listClasses(props.projectId)]).then(
      ([project, datasets, classes]) => {
        if (!live) return;
        document.title = `Settings · ${project.value.title} · Annostore`;
        setLoaded({ project, datasets, classes });
      },
      (failure: Error) => live && setError(failure.message),
    );
    return () => void (live = false);
  }, [props.projectId, generation]);

  const role = useProjectRole(props.projectId);
  const readOnly = !allows(role, 'manager');
  const title = loaded?.project.value.title ?? '…';
  return (
    <>
      <Header session={props.session} onSignOut={props.onSignOut} trail={[{ label: title, href: `/projects/${props.projectId}/images` }, { label: 'Settings' }]} />
      <main class="project-settings">
        <h1>Settings of {title}</h1>
        {role !== undefined && readOnly && <p class="role-note quiet-text">{roleCaption(role, 'only its managers change its settings, classes, datasets and members.')}</p>}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {!loaded && !error && <p role="status">Loading…</p>}
        {loaded && (
          <>
            <ProjectDetails
              project={loaded.project}
              holds={{
                datasets: loaded.datasets.length,
                images: loaded.datasets.reduce((sum, d) => sum + (d.counts?.images ?? 0), 0),
                objects: loaded.datasets.reduce((sum, d) => sum + (d.counts?.objects ?? 0), 0),
                classes: loaded.classes.length,
              }}
              readOnly={readOnly}
              onChanged={reload}
            />
            <ClassSettings projectId={props.projectId} classes={loaded.classes} readOnly={readOnly} onChanged={reload} />
            <DatasetSettings projectId={props.projectId} datasets={loaded.datasets} readOnly={readOnly} onChanged={reload} />
            {!readOnly && <ProjectMembersPanel projectId={props.projectId} />}
          </>
        )}
      </main>
    </>
  );
}
