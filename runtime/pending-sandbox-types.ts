// Temporary: the sandbox's invocation interface as agreed, until sandbox/ exports it.
import type { FunctionKey, GuestProgram, SandboxLimits } from "../sandbox/index.ts";

export interface LoadedFunction {
  program: GuestProgram;
  limits: SandboxLimits;
  env: Record<string, string>;
}
export interface InvocationRequest {
  requestId: string;
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  context: { user: unknown; [k: string]: unknown };
}
export type LogLevel = "debug" | "info" | "log" | "warn" | "error";
export interface OutboundRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
}
export interface OutboundResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  url: string;
}
export interface InvocationIO {
  fetch(request: OutboundRequest, via: "network" | "platform"): Promise<OutboundResponse>;
  call(op: string, args: unknown): Promise<unknown>;
  snapshot(): unknown;
  log(level: LogLevel, message: string): void;
}
export interface InvocationResponse {
  status: number;
  statusText?: string;
  headers: Array<[string, string]>;
  body: ReadableStream<Uint8Array> | null;
  finished: Promise<void>;
}
export interface FunctionPool {
  invoke(
    key: FunctionKey,
    load: () => Promise<LoadedFunction>,
    request: InvocationRequest,
    io: InvocationIO,
  ): Promise<InvocationResponse>;
  retire(orgId: string, functionId: string): void;
}
