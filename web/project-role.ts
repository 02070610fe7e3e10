// What the signed-in user may do in a project, as the API decides it (docs/accounts.md#project-roles):
// the page asks GET /v2/projects/:id/role and shows only the tools of that role, so that nobody is
// offered a button the server would refuse with 403 PROJECT_ROLE_REQUIRED.
import { useEffect, useState } from 'preact/hooks';
import { type ProjectRole, type Session, getProjectRole, getProjectRoles } from './api.ts';

/**
 * Whether the signed-in key manages every project of the team (its user is the team's owner or an
 * admin, and the key is not a `read` key): then nothing needs asking, which spares a page that lists
 * many projects a request for each.
 */
let managesEveryProject = false;

/** Kept from the session the app signed in with, before its pages render. */
export function rememberSession(session: Session | null): void {
  managesEveryProject = !!session && (session.user.role === 'owner' || session.user.role === 'admin') && session.key.scope !== 'read';
}

const RANK: Record<ProjectRole, number> = { viewer: 1, annotator: 2, reviewer: 3, manager: 4 };

/** Whether `role` allows what `needed` allows; no role (null), or one not known yet (undefined), allows nothing. */
export const allows = (role: ProjectRole | null | undefined, needed: ProjectRole): boolean => !!role && RANK[role] >= RANK[needed];

/** The caller's role in the project: undefined while asked, null when the API gives none (or the project is unknown). */
export function useProjectRole(projectId: number | null | undefined): ProjectRole | null | undefined {
  const [role, setRole] = useState<{ projectId: number; role: ProjectRole | null } | null>(null);
  useEffect(() => {
    if (!projectId || managesEveryProject) return;
    let live = true;
    getProjectRole(projectId).then(
      (answer) => live && setRole({ projectId, role: answer }),
      () => live && setRole({ projectId, role: null }),
    );
    return () => void (live = false);
  }, [projectId]);
  if (projectId && managesEveryProject) return 'manager';
  return role && role.projectId === projectId ? role.role : undefined;
}

/**
 * The caller's role in each of several projects (a page listing many: projects, tasks), those not
 * known yet asked together (GET /v2/project-roles); a project not answered yet is absent from the
 * map, one the API gives no role in is null.
 */
export function useProjectRoles(projectIds: readonly number[]): ReadonlyMap<number, ProjectRole | null> {
  const [roles, setRoles] = useState<ReadonlyMap<number, ProjectRole | null>>(new Map());
  const wanted = [...new Set(projectIds)].sort((a, b) => a - b).join(',');
  useEffect(() => {
    let live = true;
    const missing = wanted && !managesEveryProject ? wanted.split(',').map(Number).filter((id) => !roles.has(id)) : [];
    if (missing.length > 0) {
      getProjectRoles(missing).then(
        (answered) => live && setRoles((before) => new Map([...before, ...answered])),
        () => live && setRoles((before) => new Map([...before, ...missing.map((id) => [id, null] as const)])),
      );
    }
    return () => void (live = false);
  }, [wanted]);
  if (managesEveryProject) return new Map(projectIds.map((id) => [id, 'manager']));
  return roles;
}

/** "a viewer", "an annotator". */
export const withArticle = (role: ProjectRole): string => `${role === 'annotator' ? 'an' : 'a'} ${role}`;

/**
 * The caption beside what a role does not show: "You are a viewer in this project: only its managers
 * change its classes." The role is that of the key in use (a `read` key is a viewer at most).
 */
export function roleCaption(role: ProjectRole | null | undefined, rest: string): string {
  return role ? `You are ${withArticle(role)} in this project: ${rest}` : `You have no role in this project: ${rest}`;
}
