// The web interface: finds who is signed in (the session cookie), then shows the page of the URL.
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type Session, currentSession, signOut, whenSignedOut } from './api.ts';
import { GalleryPage } from './pages/gallery.tsx';
import { ImagePage } from './pages/image-view.tsx';
import { ProjectSettingsPage } from './pages/project-settings.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { positive } from './filters.ts';
import { NearDuplicatesPage } from './pages/near-duplicates.tsx';
import { VersionsPage } from './pages/versions.tsx';
import { EvaluationPage } from './pages/evaluation.tsx';
import { StatsPage } from './pages/stats.tsx';
import { ProjectsPage } from './pages/projects.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { SetPasswordPage } from './pages/set-password.tsx';
import { TeamUsersPage } from './pages/team-users.tsx';
import { AccountPage } from './pages/account.tsx';
import { TagsPage } from './pages/tags.tsx';
import { TasksPage } from './pages/tasks.tsx';
import { JobsPage } from './pages/jobs.tsx';
import { QualityPage } from './pages/quality.tsx';
import { MyWorkPage } from './pages/my-work.tsx';
import { rememberSession } from './project-role.ts';
import { confirmLeaving, match, navigate, useLocation } from './router.ts';
import './styles.css';

function App() {
  const location = useLocation();
  // undefined while asking, null when nobody is signed in.
  const [session, setSession] = useState<Session | null | undefined>(undefined);

  useEffect(() => {
    currentSession().then(setSession, () => setSession(null));
    whenSignedOut(() => setSession(null));
  }, []);

  const leave = useCallback(() => {
    // Unsaved changes on the page are not dropped without asking.
    if (!confirmLeaving()) return;
    void signOut().finally(() => {
      setSession(null);
      navigate('/sign-in', { replace: true });
    });
  }, []);

  if (session === undefined) return <p class="loading" role="status">Loading…</p>;
  rememberSession(session);
  // A one-time link is for whoever opens it, signed in or not.
  if (location.path === '/set-password') {
    return (
      <SetPasswordPage
        onSignedIn={(signedIn) => {
          setSession(signedIn);
          navigate('/', { replace: true });
        }}
      />
    );
  }
  if (session === null || location.path === '/sign-in') {
    const next = location.path === '/sign-in' ? (location.params.get('next') ?? '/') : `${location.path}${window.location.search}`;
    return (
      <SignInPage
        onSignedIn={(signedIn) => {
          setSession(signedIn);
          // Only a path of this site: never a redirect elsewhere.
          navigate(next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
        }}
      />
    );
  }
  const page = { session, onSignOut: leave, location };
  let params: Record<string, string> | null;
  // An id that is not a whole number is no page (rather than a request the API refuses).
  const id = (text: string) => (/^\d+$/.test(text) ? positive(text) : undefined);
  let found: number | undefined;
  if ((params = match('/projects/:id', location.path)) && id(params.id!)) {
    // A project's address is its gallery's.
    return <Redirect to={`/projects/${id(params.id!)}/images${window.location.search}`} />;
  } else if ((params = match('/projects/:id/images', location.path))) {
    if ((found = id(params.id!))) return <GalleryPage {...page} scope={{ projectId: found }} />;
  } else if ((params = match('/projects/:id/tags', location.path))) {
    if ((found = id(params.id!))) return <TagsPage {...page} projectId={found} />;
  } else if ((params = match('/projects/:id/settings', location.path))) {
    if ((found = id(params.id!))) return <ProjectSettingsPage {...page} projectId={found} />;
  } else if ((params = match('/projects/:id/versions', location.path))) {
    if ((found = id(params.id!))) return <VersionsPage {...page} projectId={found} />;
  } else if ((params = match('/projects/:id/near-duplicates', location.path))) {
    if ((found = id(params.id!))) return <NearDuplicatesPage {...page} projectId={found} />;
  } else if ((params = match('/projects/:id/evaluation', location.path))) {
    if ((found = id(params.id!))) return <EvaluationPage {...page} projectId={found} />;
  } else if ((params = match('/projects/:id/jobs', location.path))) {
    if ((found = id(params.id!))) return <JobsPage {...page} projectId={found} />;
  } else if ((params = match('/projects/:id/quality', location.path))) {
    if ((found = id(params.id!))) return <QualityPage {...page} projectId={found} />;
  } else if ((params = match('/projects/:id/stats', location.path))) {
    if ((found = id(params.id!))) return <StatsPage {...page} projectId={found} />;
  } else if ((params = match('/datasets/:id/images', location.path))) {
    if ((found = id(params.id!))) return <GalleryPage {...page} scope={{ datasetId: found }} />;
  } else if ((params = match('/images/:id', location.path))) {
    if ((found = id(params.id!))) return <ImagePage {...page} imageId={found} />;
  } else if (location.path === '/tasks') return <TasksPage {...page} />;
  else if (location.path === '/my-work') return <MyWorkPage {...page} />;
  else if (location.path === '/team/users') return <TeamUsersPage {...page} />;
  else if (location.path === '/account') return <AccountPage {...page} />;
  else if (location.path === '/' || location.path === '') return <ProjectsPage {...page} />;
  return <NotFoundPage {...page} />;
}

/** Replaces the address with `to` once shown (never while rendering). */
function Redirect(props: { to: string }) {
  useEffect(() => navigate(props.to, { replace: true }), [props.to]);
  return null;
}

render(<App />, document.getElementById('app')!);
