// A project's role for the caller, and its members: GET /v2/projects/:id/role, GET /v2/project-roles
// (the caller's role in several projects: a page listing many asks once), GET and PATCH
// /v2/projects/:id/members, PUT and DELETE /v2/projects/:id/members/:userId.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { projectRoleOf, projectRolesOf } from '../../services/project-access.ts';
import * as projectMembers from '../../services/project-members.service.ts';
import { LIST_ROUTE, needs } from '../plugins/project-access.ts';
import { CallerRole, CallerRoles, MemberParams, ProjectRolesQuery, ProjectMember, ProjectMembers, ProjectRole } from '../schemas/v2-project-members.ts';
import { IdParams, problemResponses } from '../schemas/v2.ts';

export const projectMemberRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;
    const tags = ['projects'];

    app.get(
      '/projects/:id/role',
      {
        config: { access: needs('viewer', ['project', 'params.id']) },
        schema: { tags, summary: 'The caller’s role in the project, as this key may use it (a read key: viewer at most)', params: IdParams, response: { 200: CallerRole, ...problemResponses } },
      },
      async (request) => {
        // The role check has let through an id of no project of the team (its answer is the route's).
        const role = await projectRoleOf(db, request.principal, request.params.id);
        if (!role) throw notFound('project', { projectId: request.params.id });
        return { projectId: request.params.id, role };
      },
    );

    app.get(
      '/project-roles',
      {
        config: { access: LIST_ROUTE },
        schema: { tags, summary: 'The caller’s role in each of several projects, as this key may use it', querystring: ProjectRolesQuery, response: { 200: CallerRoles, ...problemResponses } },
      },
      async (request) => ({ items: await projectRolesOf(db, request.principal, request.query.projectIds) }),
    );

    app.get(
      '/projects/:id/members',
      {
        config: { access: needs('manager', ['project', 'params.id']) },
        schema: { tags, summary: 'The project’s members and the role of the team’s other members', params: IdParams, response: { 200: ProjectMembers, ...problemResponses } },
      },
      async (request) => projectMembers.listProjectMembers(db, request.principal.teamId, request.principal.userId, request.params.id),
    );

    app.patch(
      '/projects/:id/members',
      {
        config: { access: needs('manager', ['project', 'params.id']) },
        schema: {
          tags,
          summary: 'Set the role of the team’s members who have none of their own in the project (null: none)',
          params: IdParams,
          body: Type.Object({ memberDefaultRole: Type.Union([ProjectRole, Type.Null()]) }, { additionalProperties: false }),
          response: { 200: ProjectMembers, ...problemResponses },
        },
      },
      async (request) => projectMembers.setMemberDefaultRole(db, request.principal.teamId, request.principal.userId, request.params.id, request.body.memberDefaultRole),
    );

    app.put(
      '/projects/:id/members/:userId',
      {
        config: { access: needs('manager', ['project', 'params.id']) },
        schema: {
          tags,
          summary: 'Give a user of the team a role in the project (201 when new, 200 when changed)',
          params: MemberParams,
          body: Type.Object({ role: ProjectRole }, { additionalProperties: false }),
          response: { 200: ProjectMember, 201: ProjectMember, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { member, created } = await projectMembers.putProjectMember(db, request.principal.teamId, request.params.id, request.params.userId, request.body.role);
        return reply.code(created ? 201 : 200).send(member);
      },
    );

    app.delete(
      '/projects/:id/members/:userId',
      {
        config: { access: needs('manager', ['project', 'params.id']) },
        schema: {
          tags,
          summary: 'Take the user’s own role in the project away (the project’s memberDefaultRole applies to them again)',
          params: MemberParams,
          response: { 204: Type.Null(), ...problemResponses },
        },
      },
      async (request, reply) => {
        await projectMembers.removeProjectMember(db, request.principal.teamId, request.params.id, request.params.userId);
        return reply.code(204).send(null);
      },
    );
  };
