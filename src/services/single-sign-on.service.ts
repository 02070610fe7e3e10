// Single sign-on with OpenID Connect: the authorization code flow with PKCE, state and nonce, through
// openid-client; then who may enter (docs/accounts.md, "Single sign-on"). A provider's account signs in
// as the user it is linked to (user_identities, by issuer and subject); an account not linked yet is
// linked by its verified email to the user of the team with that email, or, when its email's domain
// is one of OIDC_AUTO_CREATE_DOMAINS, becomes a new member; anyone else is refused.
import type { Kysely } from 'kysely';
import * as oidc from 'openid-client';
import { isoNow } from '../clock.ts';
import type { SingleSignOnSettings } from '../config.ts';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Database } from '../db/types.ts';
import { AppError } from '../errors.ts';
import { findTeamId } from '../repositories/teams.repository.ts';
import * as identities from '../repositories/user-identities.repository.ts';
import * as users from '../repositories/users.repository.ts';
import type { UserWithHash } from '../repositories/users.repository.ts';
import type { SignedInUser } from './sign-in.service.ts';

/** What one sign-in keeps in the browser between leaving for the provider and coming back. */
export interface SignInAttempt {
  state: string;
  nonce: string;
  /** PKCE's code verifier: the provider gave the code to whoever holds it. */
  verifier: string;
}

/** What the provider tells of the account that signed in. */
export interface ProviderAccount {
  issuer: string;
  subject: string;
  /** The account's email, when the provider says it has verified it; null otherwise. */
  verifiedEmail: string | null;
  preferredUsername: string | null;
}

/** How long the provider may take to answer one request, in seconds. */
const PROVIDER_TIMEOUT_SECONDS = 30;
/** The longest claim value read from the provider. */
const CLAIM_LENGTH = 254;
/** A login as POST /v2/users takes it. */
const LOGIN_FORM = /^[A-Za-z0-9._@-]{1,100}$/;
const REFUSED_HINT = 'ask an admin of the team to invite you with the email your provider has verified';

/** The provider's side of the flow: its metadata (fetched once, again after a failure), the redirect out, and the code's exchange. */
export class OidcProvider {
  private discovered: Promise<oidc.Configuration> | undefined;

  constructor(private readonly settings: SingleSignOnSettings) {}

  private configuration(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    this.discovered ??= oidc
      .discovery(new URL(issuer), clientId, clientSecret === undefined ? undefined : { client_secret: clientSecret }, clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(clientSecret), {
        // The settings allow plain HTTP only for a provider on a loopback address.
        execute: new URL(issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
        timeout: PROVIDER_TIMEOUT_SECONDS,
      })
      .catch((error: unknown) => {
        this.discovered = undefined;
        throw error;
      });
    return this.discovered;
  }

  /** Where to send the browser, and what it must bring back. */
  async authorizationUrl(redirectUri: string): Promise<{ url: string; attempt: SignInAttempt }> {
    const config = await this.configuration();
    const attempt = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
      code_challenge_method: 'S256',
      state: attempt.state,
      nonce: attempt.nonce,
    });
    return { url: url.href, attempt };
  }

  /**
   * Checks the provider's answer (`query`: the callback's query string) against the attempt, exchanges
   * the code, verifies the ID token (signature, issuer, audience, expiry, nonce) and reads the account.
   */
  async accountOf(query: string, attempt: SignInAttempt, redirectUri: string): Promise<ProviderAccount> {
    const config = await this.configuration();
    const callback = new URL(redirectUri);
    callback.search = query;
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: attempt.verifier, expectedState: attempt.state, expectedNonce: attempt.nonce, idTokenExpected: true });
    } catch (error) {
      throw new AppError('UNAUTHORIZED', `single sign-on failed: ${describeFailure(error)}`);
    }
    const claims = tokens.claims()!;
    let profile: Record<string, unknown> = claims;
    // Providers may keep the scopes' claims out of the ID token: the userinfo endpoint has them.
    if (claims.email === undefined && config.serverMetadata().userinfo_endpoint !== undefined) {
      try {
        profile = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)) };
      } catch (error) {
        throw new AppError('UNAUTHORIZED', `single sign-on failed: ${describeFailure(error)}`);
      }
    }
    const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 && value.length <= CLAIM_LENGTH ? value : null);
    return {
      issuer: claims.iss,
      subject: claims.sub,
      verifiedEmail: profile.email_verified === true ? text(profile.email) : null,
      preferredUsername: text(profile.preferred_username),
    };
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError) return `the provider answered ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
  const cause = (error as Error).cause;
  return cause instanceof Error ? `${(error as Error).message}: ${cause.message}` : (error as Error).message;
}

/**
 * The user `account` signs in as, by the settings' policy; refused with 403 when none may. A link
 * made here is kept, so the next sign-in finds the user by it even if the email changes.
 */
export async function admitAccount(db: Kysely<Database>, settings: SingleSignOnSettings, account: ProviderAccount): Promise<SignedInUser> {
  const now = isoNow();
  const linked = await identities.findIdentity(db, account.issuer, account.subject);
  if (linked) {
    const user = await users.findUserById(db, linked.userId);
    refuseDisabled(user);
    await identities.touchIdentity(db, linked.id, now);
    return signedIn(db, user!);
  }
  const teamId = await findTeamId(db, settings.team);
  if (teamId === undefined) throw new AppError('FORBIDDEN', `team "${settings.team}" (OIDC_TEAM) does not exist`);
  const email = account.verifiedEmail;
  if (email === null) throw new AppError('FORBIDDEN', `this account is linked to no user, and the provider gave no verified email to find one by: ${REFUSED_HINT}`);
  try {
    return await db.transaction().execute(async (trx) => {
      if (settings.linkByEmail) {
        const owners = await users.findUsersByEmail(trx, teamId, email);
        if (owners.length > 1) throw new AppError('FORBIDDEN', 'more than one user of the team has this email: ask an admin of the team to give it to one');
        const user = owners[0];
        if (user) {
          refuseDisabled(user);
          if (await identities.hasIdentityAt(trx, user.id, account.issuer)) throw new AppError('FORBIDDEN', 'the user of this email is linked to another account of this provider');
          await identities.insertIdentity(trx, { userId: user.id, issuer: account.issuer, subject: account.subject, email, now });
          return signedIn(trx, user);
        }
      }
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
      if (!settings.autoCreateDomains.includes(domain)) throw new AppError('FORBIDDEN', `no user of the team is linked to this account or has its email: ${REFUSED_HINT}`);
      const login = await freeLogin(trx, settings.team, account.preferredUsername, email);
      const id = await users.insertUser(trx, { teamId, login, email, role: 'member' });
      await identities.insertIdentity(trx, { userId: id, issuer: account.issuer, subject: account.subject, email, now });
      return signedIn(trx, (await users.findUserById(trx, id))!);
    });
  } catch (error) {
    // The same account signing in twice at once: the other attempt made the link.
    if (isUniqueViolation(error)) throw new AppError('CONFLICT', 'this account was linked just now: sign in again');
    throw error;
  }
}

function refuseDisabled(user: UserWithHash | undefined): void {
  if (!user || user.disabledAt !== null) throw new AppError('FORBIDDEN', 'this user is disabled');
}

async function signedIn(db: Kysely<Database>, user: UserWithHash): Promise<SignedInUser> {
  return { userId: user.id, teamId: user.teamId, keyId: await users.signInKeyOf(db, user.id, user.role) };
}

/** A login for a new user: the provider's preferred username when it makes one, else the email; numbered past those taken. */
async function freeLogin(db: Kysely<Database>, team: string, preferred: string | null, email: string): Promise<string> {
  const base = preferred !== null && LOGIN_FORM.test(preferred) ? preferred : email.replace(/[^A-Za-z0-9._@-]/g, '-').slice(0, 100);
  const taken = async (login: string) => (await users.findUsersByLogin(db, login, team)).length > 0;
  if (!(await taken(base))) return base;
  for (let n = 2; n < 100; n++) {
    const candidate = `${base.slice(0, 96)}-${n}`;
    if (!(await taken(candidate))) return candidate;
  }
  throw new AppError('CONFLICT', `the team has too many users named like "${base}"`);
}
