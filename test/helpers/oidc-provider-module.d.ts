// The little of oidc-provider (a devDependency without types of its own) that the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AccountClaims {
    sub: string;
    [claim: string]: unknown;
  }

  export interface ProviderConfiguration {
    clients: Record<string, unknown>[];
    findAccount(ctx: unknown, id: string): Promise<{ accountId: string; claims(): Promise<AccountClaims> } | undefined>;
    claims?: Record<string, string[]>;
    cookies?: { keys: string[] };
    features?: Record<string, { enabled: boolean }>;
    pkce?: { required(): boolean };
    [option: string]: unknown;
  }

  export default class Provider {
    constructor(issuer: string, configuration: ProviderConfiguration);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
