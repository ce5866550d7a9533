export { APIPromise, type RawResponse } from "./api-promise.ts";
export { APIResource, BaseClient, type HttpMethod, type RequestSpec } from "./base-client.ts";
export { encodePath } from "./http.ts";
export { Page, PagePromise, type CursorPageMeta, type PageMeta, type Pagination } from "./pagination.ts";
export type { ClientOptions, Fetch, HeadersInput, Logger, OAuthTokens, RequestOptions } from "./options.ts";
