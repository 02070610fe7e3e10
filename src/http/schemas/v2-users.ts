// Schemas of API v2's users, one-time password links, the caller's account and sessions.
import { Type } from 'typebox';
import { Timestamp } from './common.ts';
import { KeyScope, TeamRole } from './v2-keys.ts';

const Login = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._@-]+$', description: 'unique in the team' });
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });
const Password = Type.String({ minLength: 1, maxLength: 1024, description: 'at least 10 characters, at most 256; not the login' });
const LinkToken = Type.String({ minLength: 1, maxLength: 256, description: 'the token of a one-time link: what follows `#` in its URL' });

export const UserV2 = Type.Object({
  id: Type.Integer(),
  login: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  role: TeamRole,
  hasPassword: Type.Boolean({ description: 'the user has set a password (false: invited, not yet joined)' }),
  singleSignOn: Type.Boolean({ description: 'the user is linked to a single sign-on account' }),
  disabledAt: Type.Union([Timestamp, Type.Null()], { description: 'set while the user is disabled: their keys and sessions are refused' }),
  createdAt: Timestamp,
});

export const PasswordLink = Type.Object({
  purpose: Type.Enum(['invitation', 'reset'], { description: 'invitation: the user has no password yet; reset: they have one' }),
  url: Type.String({ description: 'the one-time link to hand to the user; shown this once only' }),
  token: Type.String({ description: 'the link’s token (the part after `#`), shown this once only' }),
  expiresAt: Timestamp,
});

export const InvitedUser = Type.Object({ user: UserV2, link: PasswordLink });

export const NewUserBody = Type.Object(
  {
    login: Login,
    email: Type.Optional(Type.Union([Email, Type.Null()])),
    role: Type.Optional(TeamRole),
  },
  { additionalProperties: false },
);

export const UserPatch = Type.Object(
  {
    role: Type.Optional(TeamRole),
    email: Type.Optional(Type.Union([Email, Type.Null()])),
    disabled: Type.Optional(Type.Boolean({ description: 'true: the user’s keys and sessions stop at once; false: their keys work again' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const LinkTokenBody = Type.Object({ token: LinkToken }, { additionalProperties: false });

export const LinkInfo = Type.Object({
  purpose: Type.Enum(['invitation', 'reset']),
  login: Type.String(),
  team: Type.String(),
  expiresAt: Timestamp,
});

export const UseLinkBody = Type.Object({ token: LinkToken, password: Password }, { additionalProperties: false });

export const PasswordChangeBody = Type.Object(
  {
    currentPassword: Type.Optional(Password),
    password: Password,
  },
  { additionalProperties: false },
);

export const SessionListing = Type.Object({
  id: Type.Integer(),
  method: Type.Enum(['key', 'password', 'oidc', 'link'], { description: 'how the session was opened' }),
  keyPrefix: Type.String({ description: 'the key the session acts through: `sign-in` for a password or single sign-on' }),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  address: Type.Union([Type.String(), Type.Null()], { description: 'the client address that signed in' }),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean({ description: 'the session this request was made with' }),
});

export const SessionsQuery = Type.Object({
  userId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'whose sessions (a team admin may name any user of the team); the caller’s own by default' })),
});

export const Account = Type.Object({
  team: Type.Object({ id: Type.Integer(), name: Type.String() }),
  user: UserV2,
});

export const AccountKeyBody = Type.Object({ scope: KeyScope }, { additionalProperties: false });
