// Project roles on every route: each /v1 and /v2 route says in its config what it needs
// (`config.access`), and one hook asks src/services/project-access.ts before the handler runs. A
// route that says nothing stops the app from starting, so no route is left unclassified.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import type { ResourceKind } from '../../repositories/project-members.repository.ts';
import { type ProjectRole, requireRoleOver, requireSeen } from '../../services/project-access.ts';

/**
 * What a route needs:
 * - `team`: nothing of any one project (the caller's account, the team's users, keys, models, webhooks);
 *   the route's own rules (team role, key scope) apply.
 * - `list`: the route lists across projects and shows only those the caller has a role in.
 * - a role: the caller's role in the project of every resource named by `of` (a kind and where its id
 *   is: `params.id`, `query.datasetId`, `body.project.id`; a number, an array or a comma-separated
 *   list) must allow it. An id of nothing of the team is left to the route's own 404; an image or
 *   dataset of a managers-only dataset is a 404 to anybody but the project's managers.
 */
export type RouteAccess = { team: true } | { list: true } | { role: ProjectRole; of: readonly (readonly [ResourceKind, string])[] };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

export const TEAM_ROUTE: RouteAccess = { team: true };
export const LIST_ROUTE: RouteAccess = { list: true };
/** The route needs `role` in the project of each named resource. */
export const needs = (role: ProjectRole, ...of: (readonly [ResourceKind, string])[]): RouteAccess => ({ role, of });

function idsAt(request: FastifyRequest, path: string): number[] {
  let value: unknown = request;
  for (const step of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  return list.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0 && n <= 2_147_483_647);
}

export function registerProjectAccess(app: FastifyInstance, db: Db): void {
  app.addHook('onRoute', (route) => {
    const config = route.config as { access?: RouteAccess; public?: boolean } | undefined;
    if (!config?.public && !config?.access) {
      throw new Error(`${String(route.method)} ${route.url} says nothing of project roles (config.access)`);
    }
  });
  // Before the schema's checks: a caller without the role learns nothing of what the route would take.
  app.addHook('preValidation', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access || !('role' in access) || !request.principal) return;
    // Every id of a managers-only dataset first: a 404 whatever else the request names.
    for (const [kind, path] of access.of) {
      if (kind === 'image' || kind === 'dataset') await requireSeen(db.kysely, request.principal, kind, idsAt(request, path));
    }
    for (const [kind, path] of access.of) {
      await requireRoleOver(db.kysely, request.principal, kind, idsAt(request, path), access.role);
    }
  });
}
