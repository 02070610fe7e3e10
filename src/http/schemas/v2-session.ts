// Schemas of /v2/session: signing the web interface in (with a login and password, or an API key),
// who is signed in, signing out.
import { Type } from 'typebox';
import { Timestamp } from './common.ts';
import { Me } from './v2-keys.ts';

export const KeySignIn = Type.Object({ key: Type.String({ minLength: 1, maxLength: 256, description: 'an active API key of the team' }) }, { additionalProperties: false });

export const PasswordSignIn = Type.Object(
  {
    login: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    team: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'the team’s name; needed only when the login and password are in more than one team' })),
  },
  { additionalProperties: false },
);

export const SessionBody = Type.Union([PasswordSignIn, KeySignIn], { description: 'a login and a password, or an API key' });

export const Session = Type.Object({
  ...Me.properties,
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'when the session ends; null when the request was made with a key, not a session' }),
});

/** GET /v2/session/oidc: the single sign-on the server offers. */
export const SingleSignOn = Type.Object({
  label: Type.String({ description: 'the provider’s name as the sign-in page shows it: "Sign in with <label>" (OIDC_BUTTON_LABEL)' }),
  startUrl: Type.String({ description: 'where the browser goes to sign in: GET /v2/session/oidc/start' }),
});

const ProviderParameter = Type.Optional(Type.String({ maxLength: 4096 }));

/** What the provider sends the browser back with (RFC 6749 §4.1.2; RFC 9207's `iss`). Other parameters are let through. */
export const SingleSignOnCallbackQuery = Type.Object({
  code: ProviderParameter,
  state: ProviderParameter,
  iss: ProviderParameter,
  error: ProviderParameter,
  error_description: ProviderParameter,
});
