/**
 * Generates the TypeScript client's types, resource classes and operation table
 * (`clients/typescript/src/generated/`) from the OpenAPI document. The generated files are
 * committed; `--check` writes nothing and exits 1 when they differ from what the document
 * generates (the drift guard of `scripts/openapi.ts --check`).
 *
 *   node --import tsx scripts/clients-typescript.ts            # regenerate after `npm run openapi`
 *   node --import tsx scripts/clients-typescript.ts --check
 *
 * What is decided here by hand, once, is in the tables below: where each resource of the document
 * lives on the client (`RESOURCE_PATHS`), which operations one method covers (`MERGED_METHODS`), the
 * few methods the hand-written core serves (`CUSTOM_METHODS`), and the query parameters the
 * document types as strings that are numbers or booleans (`NUMBER_QUERY`, `BOOLEAN_QUERY`).
 * Everything else follows from the document by rule.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";

/** Where the generated files go, relative to the repository root. */
export const GENERATED_DIR = "clients/typescript/src/generated";

/**
 * The part of an operationId before the dot → where its methods live on the client. Sub-resources
 * nest under their parent as the anchors' SDKs nest them (`client.sync.actions.approve(id)`).
 */
export const RESOURCE_PATHS: Readonly<Record<string, readonly string[]>> = {
  me: ["me"],
  api_keys: ["apiKeys"],
  oauth_apps: ["oauthApps"],
  oauth_installations: ["oauthInstallations"],
  events: ["events"],
  event_types: ["eventTypes"],
  audit_events: ["auditEvents"],
  webhook_endpoints: ["webhookEndpoints"],
  webhook_deliveries: ["webhookDeliveries"],
  engines: ["engines"],
  functions: ["functions"],
  intelligence_snapshots: ["intelligence", "snapshots"],
  sync: ["sync"],
  sync_actions: ["sync", "actions"],
  sync_interactions: ["sync", "interactions"],
  sync_conversations: ["sync", "conversations"],
  invoices: ["invoices"],
  products: ["products"],
  payments: ["payments"],
  contacts: ["contacts"],
  deals: ["deals"],
  communications: ["communications"],
  candidates: ["candidates"],
  skills: ["skills"],
};

/**
 * Operations one client method covers: `functions.invoke_<verb>` are one route served for every
 * HTTP method, so the client has one `invoke(id, { method })`.
 */
export const MERGED_METHODS: Readonly<Record<string, string>> = {
  "functions.invoke_get": "invoke",
  "functions.invoke_post": "invoke",
  "functions.invoke_put": "invoke",
  "functions.invoke_patch": "invoke",
  "functions.invoke_delete": "invoke",
};

/**
 * Methods whose body is a call into the hand-written core, because their answer is not one JSON
 * object: a function's own response, or a Server-Sent Events stream.
 */
const CUSTOM_METHODS: Readonly<Record<string, (op: OperationModel) => string>> = {
  "functions.invoke": () => `
    invoke(id: string, init?: FunctionInvokeInit, options?: RequestOptions): APIPromise<Response> {
      return invokeFunction(this._client, id, init, options);
    }`,
  "sync.chat": (op) => `
    chat(params: ${op.paramsType} & { stream: true }, options?: RequestOptions): APIPromise<SyncChatStream>;
    chat(params: ${op.paramsType} & { stream?: false }, options?: RequestOptions): APIPromise<SyncInteraction>;
    chat(params: ${op.paramsType} & { stream?: boolean }, options?: RequestOptions): APIPromise<SyncChatStream | SyncInteraction>;
    chat(params: ${op.paramsType} & { stream?: boolean }, options?: RequestOptions): APIPromise<SyncChatStream | SyncInteraction> {
      return syncChat(this._client, params, options);
    }`,
  "events.stream": (op) => `
    stream(params?: ${op.paramsType}, options?: RequestOptions): APIPromise<EventStream> {
      return streamEvents(this._client, params, options);
    }`,
};

/** Query parameters the server reads as integers, though the document types every query parameter a string. */
const NUMBER_QUERY = new Set(["page", "per_page", "limit"]);
/** Query parameters the server reads as `true`/`false`. */
const BOOLEAN_QUERY = new Set(["active", "enabled"]);

// ---------------------------------------------------------------------------------------------
// The document, as far as the generator reads it.

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  description?: string;
};
type Parameter = {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema?: Schema;
  description?: string;
};
type Content = Record<string, { schema?: Schema }>;
type Operation = {
  operationId: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { content: Content };
  responses: Record<string, { content?: Content }>;
};
export interface OpenApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** One operation as the templates need it. */
interface OperationModel {
  operationId: string;
  httpMethod: string;
  path: string;
  summary: string;
  /** Where the method lives: `["sync", "actions"]`, and its name: `approve`. */
  resource: readonly string[];
  method: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  headerParams: Parameter[];
  body: Schema | undefined;
  bodyRequired: boolean;
  /** The type of the params argument (query, or body and headers), when there is one. */
  paramsType: string;
  response: ResponseModel;
}

type ResponseModel =
  | { kind: "empty" }
  | { kind: "json"; type: string }
  | { kind: "list"; item: string; pagination: "offset" | "cursor" | "single" }
  | { kind: "custom" };

// ---------------------------------------------------------------------------------------------
// Names.

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
const camel = (text: string) => {
  const name = pascal(text);
  return name[0]!.toLowerCase() + name.slice(1);
};
const refName = (ref: string) => pascal(ref.split("/").pop()!);
const className = (resource: readonly string[]) => `${pascal(resource.join("_"))}Resource`;
const safeKey = (key: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key));
const docComment = (text: string | undefined) =>
  text ? `/** ${text.replace(/\*\//g, "*\\/").replace(/\n+/g, " ")} */\n` : "";

// ---------------------------------------------------------------------------------------------
// JSON Schema → TypeScript.

function tsType(schema: Schema | undefined): string {
  if (!schema) return "unknown";
  if (schema.$ref) return refName(schema.$ref);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((member) => wrapUnion(tsType(member))).join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectType(schema) : "unknown";
  return types.map((type) => wrapUnion(singleType(type, schema))).join(" | ");
}

const wrapUnion = (type: string) => (type.includes(" | ") && !type.startsWith("{") ? `(${type})` : type);

function singleType(type: string, schema: Schema): string {
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return arrayOf(tsType(schema.items));
    case "object":
      return objectType(schema);
    default:
      throw new Error(`unsupported JSON Schema type '${type}'`);
  }
}

const arrayOf = (item: string) => (/^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`);

function objectType(schema: Schema): string {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) {
    const extra = schema.additionalProperties;
    if (extra === false) return "Record<string, never>";
    return `Record<string, ${extra && extra !== true ? tsType(extra) : "unknown"}>`;
  }
  const required = new Set(schema.required ?? []);
  const members = properties.map(
    ([name, property]) =>
      `${docComment(property.description)}${safeKey(name)}${required.has(name) ? "" : "?"}: ${tsType(property)};`,
  );
  return `{\n${members.join("\n")}\n}`;
}

/** A named declaration: an interface for an object with properties, a type alias otherwise. */
function declaration(name: string, schema: Schema, description = schema.description): string {
  const isPlainObject =
    schema.type === "object" &&
    Object.keys(schema.properties ?? {}).length > 0 &&
    !schema.anyOf &&
    !schema.oneOf;
  const body = tsType(schema);
  return isPlainObject
    ? `${docComment(description)}export interface ${name} ${body}\n`
    : `${docComment(description)}export type ${name} = ${body};\n`;
}

// ---------------------------------------------------------------------------------------------
// Query parameters: their descriptions are written by one rule on the server (api/list-params.ts).

function queryParamType(param: Parameter): string {
  if (NUMBER_QUERY.has(param.name)) return "number";
  if (BOOLEAN_QUERY.has(param.name)) return "boolean";
  const description = param.schema?.description ?? param.description ?? "";
  const values = /^One value or a comma list of: (.+)$/.exec(description)?.[1];
  if (values) return `OneOrMany<${literals(values.split(", "))}>`;
  const sorts = /^One of (.+); prefix - for descending$/.exec(description)?.[1];
  if (sorts) return literals(sorts.split(", ").flatMap((field) => [field, `-${field}`]));
  return tsType(param.schema);
}

const literals = (values: string[]) => values.map((value) => JSON.stringify(value)).join(" | ");

// ---------------------------------------------------------------------------------------------
// The model: every operation, with its place on the client.

export function operationsOf(document: OpenApiDocument): OperationModel[] {
  const models: OperationModel[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const httpMethod of HTTP_METHODS) {
      const operation = item[httpMethod];
      if (operation) models.push(modelOf(path, httpMethod.toUpperCase(), operation, document));
    }
  }
  return models;
}

function modelOf(path: string, httpMethod: string, op: Operation, document: OpenApiDocument): OperationModel {
  const [resourceName, verb] = op.operationId.split(".");
  const resource = RESOURCE_PATHS[resourceName!];
  if (!resource || !verb) {
    throw new Error(
      `operation '${op.operationId}': add '${resourceName}' to RESOURCE_PATHS in scripts/clients-typescript.ts (where its methods live on the client)`,
    );
  }
  const params = op.parameters ?? [];
  const body = op.requestBody?.content["application/json"]?.schema;
  const model: OperationModel = {
    operationId: op.operationId,
    httpMethod,
    path,
    summary: op.summary ?? op.operationId,
    resource,
    method: MERGED_METHODS[op.operationId] ?? camel(verb),
    pathParams: params.filter((param) => param.in === "path"),
    queryParams: params.filter((param) => param.in === "query"),
    headerParams: params.filter((param) => param.in === "header"),
    body,
    bodyRequired: body ? requiredOf(body, document).length > 0 : false,
    paramsType: `${pascal(op.operationId)}Params`,
    response: responseOf(op, httpMethod, document),
  };
  if (model.body && model.queryParams.length > 0) {
    throw new Error(`operation '${op.operationId}' has both a body and query parameters: not supported yet`);
  }
  return model;
}

function resolve(schema: Schema, document: OpenApiDocument): Schema {
  return schema.$ref
    ? resolve(document.components.schemas[schema.$ref.split("/").pop()!]!, document)
    : schema;
}

const requiredOf = (schema: Schema, document: OpenApiDocument) => resolve(schema, document).required ?? [];

function responseOf(op: Operation, httpMethod: string, document: OpenApiDocument): ResponseModel {
  const ok = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
  const contents = ok.flatMap(([, response]) => Object.entries(response.content ?? {}));
  if (
    contents.some(([type]) => type === "text/event-stream") ||
    op.operationId.startsWith("functions.invoke_")
  ) {
    return { kind: "custom" };
  }
  const json = contents.filter(([type]) => type === "application/json").map(([, content]) => content.schema!);
  if (json.length === 0) return { kind: "empty" };
  const schema = json[0]!;
  const resolved = resolve(schema, document);
  const data = resolved.properties?.data;
  if (httpMethod === "GET" && data?.type === "array") {
    return {
      kind: "list",
      item: tsType(data.items),
      pagination: paginationOf(resolved, op.operationId, document),
    };
  }
  const types = [
    ...new Set(json.map((one) => (one.$ref ? refName(one.$ref) : `${pascal(op.operationId)}Response`))),
  ];
  return { kind: "json", type: types.join(" | ") };
}

/** How the next page is asked for, read from the list's `meta`; a shape of its own fails loudly. */
function paginationOf(
  list: Schema,
  operationId: string,
  document: OpenApiDocument,
): "offset" | "cursor" | "single" {
  const meta = list.properties?.meta ? resolve(list.properties.meta, document) : undefined;
  const keys = Object.keys(meta?.properties ?? {})
    .sort()
    .join(",");
  if (!meta) return "single";
  if (keys === "page,per_page,total") return "offset";
  if (keys === "limit,next_cursor") return "cursor";
  throw new Error(
    `operation '${operationId}': a list whose meta is {${keys}} pages in no way the client knows`,
  );
}

// ---------------------------------------------------------------------------------------------
// types.ts: the document's schemas, then each operation's params and inline responses.

function typesFile(document: OpenApiDocument, operations: OperationModel[]): string {
  const parts = [
    `export type OneOrMany<T> = T | readonly T[];\n`,
    ...Object.entries(document.components.schemas).map(([name, schema]) => declaration(pascal(name), schema)),
  ];
  for (const op of operations) {
    if (MERGED_METHODS[op.operationId]) continue;
    const params = paramsDeclaration(op);
    if (params) parts.push(params);
    if (op.response.kind === "json" && op.response.type === `${pascal(op.operationId)}Response`) {
      const schema = documentResponse(document, op)[0]!;
      parts.push(declaration(op.response.type, schema, `What ${op.operationId} answers.`));
    }
  }
  return parts.join("\n");
}

function documentResponse(document: OpenApiDocument, op: OperationModel): Schema[] {
  const responses = document.paths[op.path]![op.httpMethod.toLowerCase()]!.responses;
  return Object.entries(responses)
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([, response]) => response.content?.["application/json"]?.schema)
    .filter((schema): schema is Schema => schema !== undefined);
}

function paramsDeclaration(op: OperationModel): string | undefined {
  const headerMembers = op.headerParams.map(
    (param) => `${docComment(param.description ?? param.schema?.description)}${camel(param.name)}?: string;`,
  );
  const headers = headerMembers.length > 0 ? `{\n${headerMembers.join("\n")}\n}` : undefined;
  const comment = `The parameters of \`${op.operationId}\` (${op.httpMethod} ${op.path}).`;
  if (op.body) {
    if (!headers && !op.body.$ref) return declaration(op.paramsType, op.body, comment);
    return `${docComment(comment)}export type ${op.paramsType} = ${tsType(op.body)}${headers ? ` & ${headers}` : ""};\n`;
  }
  if (op.queryParams.length > 0) {
    const members = op.queryParams.map(
      (param) =>
        `${docComment(param.description ?? param.schema?.description)}${safeKey(param.name)}${param.required ? "" : "?"}: ${queryParamType(param)};`,
    );
    return `${docComment(comment)}export interface ${op.paramsType} {\n${members.join("\n")}\n}\n`;
  }
  if (headers) return `${docComment(comment)}export interface ${op.paramsType} ${headers}\n`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// resources.ts: one class per resource, one method per operation, and the client's tree of them.

interface ResourceNode {
  path: readonly string[];
  children: Map<string, ResourceNode>;
  operations: OperationModel[];
}

function resourceTree(operations: OperationModel[]): ResourceNode {
  const root: ResourceNode = { path: [], children: new Map(), operations: [] };
  for (const path of Object.values(RESOURCE_PATHS)) {
    let node = root;
    for (const [index, part] of path.entries()) {
      let child = node.children.get(part);
      if (!child) {
        child = { path: path.slice(0, index + 1), children: new Map(), operations: [] };
        node.children.set(part, child);
      }
      node = child;
    }
  }
  for (const op of operations) {
    let node = root;
    for (const part of op.resource) node = node.children.get(part)!;
    node.operations.push(op);
  }
  return root;
}

function methodSource(op: OperationModel): string {
  const doc = docComment(`${op.summary}. \`${op.httpMethod} ${op.path}\``);
  const custom = CUSTOM_METHODS[clientPathOf(op)];
  if (op.response.kind === "custom") {
    if (!custom) throw new Error(`operation '${op.operationId}' needs a CUSTOM_METHODS template`);
    return `${doc}${custom(op).trim()}\n`;
  }
  const args = op.pathParams.map((param) => `${camel(param.name)}: ${tsType(param.schema)}`);
  const hasParams = op.body || op.queryParams.length > 0 || op.headerParams.length > 0;
  const paramsRequired = op.bodyRequired || op.queryParams.some((param) => param.required);
  if (hasParams) args.push(`params${paramsRequired ? "" : "?"}: ${op.paramsType}`);
  args.push("options?: RequestOptions");
  const path = `\`${op.path.replace(/\{([^}]+)\}/g, (_, name: string) => `\${encodePath(${camel(name)})}`)}\``;
  const spec = [`method: "${op.httpMethod}"`, `path: ${path}`];
  let prelude = "";
  if (op.headerParams.length > 0) {
    const names = op.headerParams.map((param) => camel(param.name));
    const source = op.bodyRequired ? "params" : "params ?? {}";
    prelude = `const { ${names.join(", ")}${op.body ? ", ...body" : ""} } = ${source};\n`;
    spec.push(
      `headers: { ${op.headerParams.map((param) => `${JSON.stringify(param.name)}: ${camel(param.name)}`).join(", ")} }`,
    );
    if (op.body) spec.push("body");
  } else if (op.body) {
    spec.push(op.bodyRequired ? "body: params" : "body: params ?? {}");
  } else if (op.queryParams.length > 0) {
    spec.push("query: params");
  }
  const { response } = op;
  let call: string;
  let returns: string;
  if (response.kind === "list") {
    spec.push(`pagination: "${response.pagination}"`);
    const meta = { offset: "PageMeta", cursor: "CursorPageMeta", single: "undefined" }[response.pagination];
    returns = `PagePromise<${response.item}, ${meta}>`;
    call = `this._client.list<${response.item}, ${meta}>({ ${spec.join(", ")} }, options)`;
  } else {
    returns = `APIPromise<${response.kind === "json" ? response.type : "void"}>`;
    call = `this._client.request<${response.kind === "json" ? response.type : "void"}>({ ${spec.join(", ")} }, options)`;
  }
  return `${doc}${op.method}(${args.join(", ")}): ${returns} {\n${prelude}return ${call};\n}\n`;
}

const clientPathOf = (op: OperationModel) => [...op.resource, op.method].join(".");

function classSource(node: ResourceNode): string {
  const children = [...node.children.entries()].map(
    ([name, child]) =>
      `readonly ${name}: ${className(child.path)} = new ${className(child.path)}(this._client);\n`,
  );
  const seen = new Set<string>();
  const methods = node.operations
    .filter((op) => (seen.has(op.method) ? false : (seen.add(op.method), true)))
    .map(methodSource);
  const title = `\`client.${node.path.join(".")}\``;
  return `/** ${title}. */\nexport class ${className(node.path)} extends APIResource {\n${[...children, ...methods].join("\n")}}\n`;
}

function resourcesFile(operations: OperationModel[]): string {
  const root = resourceTree(operations);
  const classes: string[] = [];
  const visit = (node: ResourceNode) => {
    for (const child of node.children.values()) visit(child);
    if (node.path.length > 0) classes.push(classSource(node));
  };
  visit(root);
  const typeNames = new Set<string>();
  for (const op of operations) {
    if (op.body || op.queryParams.length > 0 || op.headerParams.length > 0) typeNames.add(op.paramsType);
    const { response } = op;
    if (response.kind === "json") response.type.split(" | ").forEach((name) => typeNames.add(name));
    if (response.kind === "list") typeNames.add(response.item);
  }
  typeNames.add("SyncInteraction");
  const top = [...root.children.entries()].map(
    ([name, child]) => `readonly ${name}: ${className(child.path)} = new ${className(child.path)}(this);\n`,
  );
  return `import { APIResource, encodePath, type APIPromise, type PagePromise, type RequestOptions, type PageMeta, type CursorPageMeta } from "../core/index.ts";
import { BaseClient } from "../core/base-client.ts";
import { invokeFunction, type FunctionInvokeInit } from "../functions-invoke.ts";
import { streamEvents, type EventStream } from "../event-stream.ts";
import { syncChat, type SyncChatStream } from "../sync-stream.ts";
import type { ${[...typeNames].sort().join(", ")} } from "./types.ts";

${classes.join("\n")}
/** Every resource of the API, as properties of the client. */
export abstract class TesseraResources extends BaseClient {
${top.join("\n")}}
`;
}

// ---------------------------------------------------------------------------------------------
// operations.ts: the table the coverage test reads.

function operationsFile(operations: OperationModel[]): string {
  const rows = operations.map((op) => {
    const merged = MERGED_METHODS[op.operationId] ? `, httpMethodArgument: true` : "";
    return `{ operationId: "${op.operationId}", httpMethod: "${op.httpMethod}", path: "${op.path}", clientMethod: "${clientPathOf(op)}"${merged} },`;
  });
  return `/** One operation of the document and the client method that calls it. */
export interface OperationEntry {
  operationId: string;
  httpMethod: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  /** The method's path on a client: \`sync.actions.approve\` is \`client.sync.actions.approve\`. */
  clientMethod: string;
  /** The method covers several operations, told apart by the HTTP method it is given (\`functions.invoke\`). */
  httpMethodArgument?: true;
}

/** Every operation of the document, in its order. */
export const OPERATIONS: readonly OperationEntry[] = [
${rows.join("\n")}
];
`;
}

// ---------------------------------------------------------------------------------------------
// operations.md: the same table for readers, with how each method is called.

/** Where the table of operations for readers goes, relative to the repository root. */
export const OPERATIONS_PAGE = "clients/typescript/operations.md";

function operationsPage(document: OpenApiDocument, operations: OperationModel[]): string {
  const rows = operations.map((op) => {
    const args = op.pathParams.map((param) => camel(param.name));
    if (MERGED_METHODS[op.operationId]) args.push(`{ method: "${op.httpMethod}", … }`);
    else if (op.body || op.queryParams.length > 0 || op.headerParams.length > 0) {
      const required = op.bodyRequired || op.queryParams.some((param) => param.required);
      args.push(required ? "params" : "params?");
    }
    const call = `client.${clientPathOf(op)}(${args.join(", ")})`;
    return `| \`${op.operationId}\` | \`${op.httpMethod} ${op.path}\` | \`${call}\` |`;
  });
  return `<!-- Generated by scripts/clients-typescript.ts from openapi/openapi.json. Do not edit. -->

# Operations and their methods

Every operation of the ${document.info.title} (${document.info.version}) and the method of \`@tessera/client\` that calls
it. \`functions.invoke_get\`, \`_post\`, \`_put\`, \`_patch\` and \`_delete\` are one route served for every HTTP
method, so they are one method, \`client.functions.invoke(id, { method })\`. The test
\`test/clients/typescript/coverage.test.ts\` holds this table to the document and to the client.

| operation | route | method |
| --- | --- | --- |
${rows.join("\n")}
`;
}

// ---------------------------------------------------------------------------------------------
// The generator.

/** The function SDK's copy of the types, with the REST routes `ctx.platform.fetch` is typed by. */
const SDK_API_FILE = "sdk/api.ts";

/**
 * sdk/api.ts: the client's types (the same declarations as types.ts) and `PlatformRoutes`, the
 * JSON answer of each operation by method and path template (lists as the document gives them:
 * `{ data, meta }`). Streams, invoke and empty answers are left out: they stay untyped.
 */
function sdkApiFile(document: OpenApiDocument, operations: OperationModel[]): string {
  const methods = new Map<string, string[]>();
  for (const op of operations) {
    if (op.response.kind !== "json" && op.response.kind !== "list") continue;
    const type = op.response.kind === "json" ? op.response.type : tsType(documentResponse(document, op)[0]);
    const routes = methods.get(op.httpMethod) ?? [];
    routes.push(`${docComment(`\`${op.operationId}\`: ${op.summary}`)}${JSON.stringify(op.path)}: ${type};`);
    methods.set(op.httpMethod, routes);
  }
  const routes = [...methods]
    .map(([method, members]) => `${method}: {\n${members.join("\n")}\n};`)
    .join("\n");
  return `${typesFile(document, operations)}
/** What each operation answers, by HTTP method and path template (\`{id}\` is one path segment). */
export interface PlatformRoutes {
${routes}
}
`;
}

const BANNER = (document: OpenApiDocument) =>
  `// Generated by scripts/clients-typescript.ts from openapi/openapi.json (${document.info.title} ${document.info.version}).\n// Do not edit: run \`node --import tsx scripts/clients-typescript.ts\`.\n\n`;

/**
 * The client's generated files for a document (its types, resources and operation table, and
 * operations.md): path (relative to the repository root) → content,
 * formatted with the repository's Prettier settings (`prettierOptions`, read from its config when
 * left out), so `prettier --check` passes on them.
 *
 * @example
 *   const files = await generateTypeScriptClient(JSON.parse(await readFile("openapi/openapi.json", "utf8")));
 *   files.get("clients/typescript/src/generated/types.ts");
 */
export async function generateTypeScriptClient(
  document: OpenApiDocument,
  prettierOptions?: prettier.Options,
): Promise<Map<string, string>> {
  const operations = operationsOf(document);
  const sources = {
    "types.ts": typesFile(document, operations),
    "resources.ts": resourcesFile(operations),
    "operations.ts": operationsFile(operations),
  };
  const files = new Map<string, string>();
  for (const [name, source] of Object.entries(sources)) {
    const path = `${GENERATED_DIR}/${name}`;
    const options = prettierOptions ?? (await prettier.resolveConfig(join(ROOT, path))) ?? {};
    files.set(path, await prettier.format(BANNER(document) + source, { ...options, parser: "typescript" }));
  }
  const sdkOptions = prettierOptions ?? (await prettier.resolveConfig(join(ROOT, SDK_API_FILE))) ?? {};
  const sdkApi = BANNER(document) + sdkApiFile(document, operations);
  files.set(SDK_API_FILE, await prettier.format(sdkApi, { ...sdkOptions, parser: "typescript" }));
  const pageOptions = prettierOptions ?? (await prettier.resolveConfig(join(ROOT, OPERATIONS_PAGE))) ?? {};
  const page = operationsPage(document, operations);
  files.set(OPERATIONS_PAGE, await prettier.format(page, { ...pageOptions, parser: "markdown" }));
  return files;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

async function main(check: boolean): Promise<number> {
  const document = JSON.parse(
    await readFile(join(ROOT, "openapi", "openapi.json"), "utf8"),
  ) as OpenApiDocument;
  const files = await generateTypeScriptClient(document);
  const stale: string[] = [];
  for (const [path, content] of files) {
    const target = join(ROOT, path);
    if (check) {
      if ((await readFile(target, "utf8").catch(() => undefined)) !== content) stale.push(path);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    console.log(`wrote ${path}`);
  }
  if (stale.length === 0) return 0;
  console.error(
    `${stale.join(", ")} ${stale.length === 1 ? "is" : "are"} stale: run node --import tsx scripts/clients-typescript.ts`,
  );
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.includes("--check"));
}
