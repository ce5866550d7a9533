import { TesseraError, MissingCredentialsError, TokenRefreshError } from "./errors.ts";
import { readEnv, type ClientOptions, type Fetch, type OAuthTokens } from "./options.ts";

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** Where and how to reach `POST /oauth/token`. */
export interface TokenEndpoint {
  baseURL: string;
  fetch: Fetch;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * The client's credential: an API key, or an OAuth access token that may be refreshed. Held in
 * private fields, shown nowhere: not in errors, logs, `JSON.stringify` or `util.inspect`.
 */
export class Credentials {
  #bearer: string;
  #refreshToken: string | undefined;
  readonly #kind: "api_key" | "oauth";
  readonly #clientId: string | undefined;
  readonly #clientSecret: string | undefined;
  readonly #onTokens: ClientOptions["onTokens"];
  #refreshing: Promise<void> | undefined;

  constructor(options: ClientOptions) {
    if (options.apiKey !== undefined && options.accessToken !== undefined) {
      throw new TesseraError("Give either apiKey or accessToken, not both");
    }
    const bearer = options.accessToken ?? options.apiKey ?? readEnv("TESSERA_API_KEY");
    if (!bearer) {
      throw new MissingCredentialsError(
        "No API key: pass new Tessera({ apiKey }) or set TESSERA_API_KEY (or pass { accessToken } for OAuth)",
      );
    }
    if (options.refreshToken !== undefined && options.clientId === undefined) {
      throw new TesseraError("A refreshToken needs the clientId (and clientSecret) of its app");
    }
    this.#bearer = bearer;
    this.#kind = options.accessToken === undefined ? "api_key" : "oauth";
    this.#refreshToken = options.refreshToken;
    this.#clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#onTokens = options.onTokens;
  }

  /** The value of `Authorization: Bearer …` now. */
  get bearer(): string {
    return this.#bearer;
  }

  get canRefresh(): boolean {
    return this.#refreshToken !== undefined;
  }

  /**
   * Trades the refresh token for a new pair at `POST /oauth/token` (RFC 6749, section 6) after
   * `staleBearer` was refused. Refresh tokens rotate and a spent one revokes the grant, so concurrent
   * callers share one refresh, and a caller whose token was already replaced refreshes nothing.
   */
  async refresh(staleBearer: string, http: TokenEndpoint): Promise<void> {
    if (this.#bearer !== staleBearer) return;
    this.#refreshing ??= this.#refresh(http).finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(http: TokenEndpoint): Promise<void> {
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: this.#refreshToken! });
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (this.#clientSecret !== undefined) {
      // client_secret_basic: each part form-encoded first (RFC 6749, section 2.3.1).
      const pair = `${encodeURIComponent(this.#clientId!)}:${encodeURIComponent(this.#clientSecret)}`;
      headers.authorization = `Basic ${btoa(pair)}`;
    } else {
      form.set("client_id", this.#clientId!);
    }
    let response: Response;
    try {
      response = await http.fetch(`${http.baseURL}/oauth/token`, {
        method: "POST",
        headers,
        body: form.toString(),
        ...(http.signal ? { signal: http.signal } : {}),
      });
    } catch (cause) {
      throw new TokenRefreshError("Could not reach the token endpoint to refresh the access token", {
        cause,
      });
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body.access_token !== "string") {
      const error = typeof body.error === "string" ? body.error : undefined;
      const description = typeof body.error_description === "string" ? `: ${body.error_description}` : "";
      throw new TokenRefreshError(
        `Refreshing the access token failed (${response.status} ${error ?? ""}${description})`,
        {
          status: response.status,
          ...(error ? { error } : {}),
        },
      );
    }
    const tokens: OAuthTokens = {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : this.#refreshToken!,
      ...(typeof body.expires_in === "number" ? { expiresIn: body.expires_in } : {}),
      ...(typeof body.scope === "string" ? { scope: body.scope } : {}),
    };
    this.#bearer = tokens.accessToken;
    this.#refreshToken = tokens.refreshToken;
    await this.#onTokens?.(tokens);
  }

  /** What may be shown: the kind of credential, never its value. */
  toJSON(): { type: "api_key" | "oauth"; refreshable: boolean } {
    return { type: this.#kind, refreshable: this.canRefresh };
  }

  [INSPECT](): string {
    return `Credentials { type: '${this.#kind}', value: [redacted] }`;
  }
}
