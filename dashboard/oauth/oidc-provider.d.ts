/**
 * The part of oidc-provider 9 that Tessera uses (the package ships JavaScript only; its community
 * types are a separate package pinned to another major). Kept to what dashboard/oauth/ calls.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export type AdapterPayload = Record<string, unknown>;

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface ClientLike {
    clientId: string;
    clientSecret?: string;
    clientAuthMethod: string;
    scope?: string;
    grantTypeAllowed(type: string): boolean;
  }

  export interface TokenLike {
    clientId?: string;
    grantId?: string;
    accountId?: string;
  }

  export interface KoaContextLike {
    type: string;
    body: unknown;
    status: number;
    set(name: string, value: string): void;
    oidc: {
      result?: { consent?: { grantId?: string } };
      provider: Provider;
      entities: Record<string, unknown>;
    };
  }

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    addOIDCScope(scope: string): void;
    rejectOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface InteractionDetails {
    uid: string;
    params: Record<string, unknown> & { client_id?: string; scope?: string; redirect_uri?: string };
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    grantId?: string;
    session?: { accountId?: string };
  }

  export interface InteractionResults {
    login?: { accountId: string };
    consent?: { grantId: string };
    error?: string;
    error_description?: string;
  }

  export type Configuration = Record<string, unknown>;

  export class Provider {
    constructor(issuer: string, configuration: Configuration);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Grant: {
      new (input: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    Client: {
      prototype: { compareClientSecret(this: ClientLike, actual: string): boolean | Promise<boolean> };
      find(id: string): Promise<ClientLike | undefined>;
    };
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    AccessDenied: new (description?: string) => Error;
  };

  export default Provider;
}
