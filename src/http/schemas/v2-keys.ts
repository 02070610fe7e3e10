// Schemas of API v2's /me and /keys.
import { Type } from 'typebox';
import { Timestamp } from './common.ts';

export const KeyScope = Type.Enum(['read', 'write', 'admin'], { description: 'read: only reads; write: reads and writes; admin: also manages the team’s keys' });

export const TeamRole = Type.Enum(['owner', 'admin', 'member'], { description: 'owner and admin manage the team’s users and keys; member works in it' });

export const Me = Type.Object({
  team: Type.Object({ id: Type.Integer(), name: Type.String() }),
  user: Type.Object({ id: Type.Integer(), login: Type.String(), role: TeamRole }),
  key: Type.Object({ id: Type.Integer(), prefix: Type.String({ description: '`sign-in` when a password or single sign-on session acts through the user’s sign-in key' }), scope: KeyScope }),
});

export const TeamKey = Type.Object({
  id: Type.Integer(),
  prefix: Type.String({ description: 'the first characters of the key, to recognise it' }),
  scope: KeyScope,
  user: Type.Object({ id: Type.Integer(), login: Type.String() }),
  createdAt: Timestamp,
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});

export const NewKey = Type.Object({
  ...TeamKey.properties,
  key: Type.String({ description: 'the key itself, shown this once only' }),
});

export const KeyBody = Type.Object(
  {
    scope: KeyScope,
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._@-]+$', description: 'login of the team’s user the key is for; the caller’s own by default' })),
  },
  { additionalProperties: false },
);
