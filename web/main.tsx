// The web interface: finds who is signed in (the session cookie), then shows the page of the URL.
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type Session, currentSession, signOut, whenSignedOut } from './api.ts';
import { GalleryPage } from './pages/gallery.tsx';
import { ImagePage } from './pages/image-view.tsx';
import { NearDuplicatesPage } from './pages/near-duplicates.tsx';
import { ProjectsPage } from './pages/projects.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { TasksPage } from './pages/tasks.tsx';
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
  if ((params = match('/projects/:id/images', location.path))) return <GalleryPage {...page} scope={{ projectId: Number(params.id) }} />;
  if ((params = match('/projects/:id/near-duplicates', location.path))) return <NearDuplicatesPage {...page} projectId={Number(params.id)} />;
  if ((params = match('/datasets/:id/images', location.path))) return <GalleryPage {...page} scope={{ datasetId: Number(params.id) }} />;
  if ((params = match('/images/:id', location.path))) return <ImagePage {...page} imageId={Number(params.id)} />;
  if (location.path === '/tasks') return <TasksPage {...page} />;
  return <ProjectsPage {...page} />;
}

render(<App />, document.getElementById('app')!);
