// Schemas of /v2/session: signing the web interface in with an API key, who is signed in, signing out.
import { Type } from 'typebox';
import { Timestamp } from './common.ts';
import { Me } from './v2-keys.ts';

export const SessionBody = Type.Object({ key: Type.String({ minLength: 1, maxLength: 256, description: 'an active API key of the team' }) }, { additionalProperties: false });

export const Session = Type.Object({
  ...Me.properties,
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'when the session ends; null when the request was made with a key, not a session' }),
});
