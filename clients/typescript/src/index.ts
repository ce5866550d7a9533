export { Tessera, Tessera as default } from "./client.ts";
export { APIPromise } from "./core/api-promise.ts";
export { Page, PagePromise, type CursorPageMeta, type PageMeta } from "./core/pagination.ts";
export type {
  ClientOptions,
  Fetch,
  HeadersInput,
  Logger,
  OAuthTokens,
  RequestOptions,
} from "./core/options.ts";
export type { HttpMethod, RequestSpec } from "./core/base-client.ts";
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  MissingCredentialsError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  TesseraError,
  TokenRefreshError,
  UnprocessableEntityError,
  WebhookVerificationError,
  type FieldError,
} from "./core/errors.ts";
export { SSEDecoder, type ServerSentEvent } from "./core/sse.ts";
export { EventStream } from "./event-stream.ts";
export type { FunctionInvokeInit } from "./functions-invoke.ts";
export { SyncChatStream, type SyncStreamEvent } from "./sync-stream.ts";
export {
  signWebhook,
  verifyWebhook,
  webhooks,
  type WebhookHeaders,
  type WebhookVerifyOptions,
} from "./webhooks.ts";
export { VERSION } from "./version.ts";
export type * from "./generated/types.ts";
