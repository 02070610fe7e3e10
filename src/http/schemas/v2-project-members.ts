// The schemas of a project's roles and members (docs/accounts.md#project-roles): the routes' and the
// web interface's one source.
import { Type } from 'typebox';
import { MAX_LISTED_MEMBERS } from '../../services/project-members.service.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
export const ProjectRole = Type.Union(
  [Type.Literal('viewer'), Type.Literal('annotator'), Type.Literal('reviewer'), Type.Literal('manager')],
  { description: 'viewer reads; annotator also edits images’ annotations and tags; reviewer also reviews; manager does everything in the project' },
);
export const MemberParams = Type.Object({ id: Id, userId: Id });
export const ProjectMember = Type.Object({
  userId: Type.Integer(),
  login: Type.String(),
  teamRole: Type.String({ description: 'owner, admin or member: an owner or admin manages every project whatever their role here' }),
  role: ProjectRole,
  createdAt: Type.String(),
});
export const ProjectMembers = Type.Object({
  projectId: Type.Integer(),
  memberDefaultRole: Type.Union([ProjectRole, Type.Null()], { description: 'the role of the team’s members who have none of their own here; null: none, the project is hidden from them' }),
  items: Type.Array(ProjectMember, { description: `the members with a role of their own, in user id order (at most ${MAX_LISTED_MEMBERS})` }),
});
export const CallerRole = Type.Object({
  projectId: Type.Integer(),
  role: ProjectRole,
});
/** The most projects GET /v2/project-roles answers for at once. */
export const MAX_ROLES_ASKED = 500;
export const ProjectRolesQuery = Type.Object({
  projectIds: Type.Array(Id, { minItems: 1, maxItems: MAX_ROLES_ASKED, description: 'the projects asked of, comma-separated' }),
});
export const CallerRoles = Type.Object({
  items: Type.Array(CallerRole, {
    description: 'the caller’s role in each of the projects asked of that they have a role in, in project id order; a project they have none in and an id of no project of the team are both left out',
  }),
});
