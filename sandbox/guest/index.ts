import { captureHost, requests, setBooting, settle, type HostFn } from "./bridge.ts";
import { Blob, File, FormData } from "./blob.ts";
import { structuredClone } from "./clone.ts";
import { CompressionStream, DecompressionStream } from "./compression.ts";
import { console } from "./console.ts";
import { Crypto, CryptoKey, SubtleCrypto, crypto } from "./crypto.ts";
import { DOMException } from "./dom-exception.ts";
import { TextDecoder, TextEncoder, atob, btoa } from "./encoding.ts";
import {
  AbortController,
  AbortSignal,
  CustomEvent,
  ErrorEvent,
  Event,
  EventTarget,
  PromiseRejectionEvent,
  globalEvents,
  reportError,
} from "./events.ts";
import { fetch } from "./fetch.ts";
import { Headers } from "./headers.ts";
import { Request, Response } from "./http.ts";
import { MessageChannel, MessageEvent, MessagePort } from "./messages.ts";
import {
  Performance,
  PerformanceEntry,
  PerformanceMark,
  PerformanceMeasure,
  performance,
  setTimeOrigin,
} from "./performance.ts";
import {
  Deno,
  MODULE_GLOBAL,
  awaitTopLevel,
  cancel,
  currentCtx,
  endRequest,
  pull,
  resolveHandler,
  setEnv,
  startRequest,
} from "./serve.ts";
import * as streams from "./streams.ts";
import { clearInterval, clearTimeout, fireTimer, queueMicrotask, setInterval, setTimeout } from "./timers.ts";
import { URL, URLSearchParams } from "./url.ts";
import { urlPatternGlobal } from "./urlpattern.ts";
import { installWebAssembly } from "./wasm.ts";
import { socketEvent, websocketGlobals } from "./websocket.ts";

/** Tessera's version (package.json), defined by the bundler (web-platform.ts). */
declare const TESSERA_VERSION: string;

/**
 * The in-isolate web platform (WinterTC minimum common API + the Deno subset). This
 * script runs once, in the V8 startup snapshot; an isolate booted from it then gets
 * the host function through `__tessera_boot`, which removes itself from the global
 * and returns the dispatcher the host keeps. Names on the global are all longer than
 * one character: isolated-vm 5's snapshots drop one-letter global properties.
 */
const navigator = Object.freeze({
  // As Deno's `Deno/<version>`: the product and its version (package.json's, set by the build).
  userAgent: `Tessera/${TESSERA_VERSION}`,
  hardwareConcurrency: 1,
  language: "en-US",
  languages: ["en-US"],
});

const GLOBALS: Record<string, unknown> = {
  ...Object.fromEntries(Object.entries(streams).filter(([name]) => /^[A-Z]/.test(name))),
  AbortController,
  AbortSignal,
  Blob,
  CompressionStream,
  Crypto,
  CryptoKey,
  CustomEvent,
  DOMException,
  DecompressionStream,
  Deno,
  ErrorEvent,
  Event,
  EventTarget,
  File,
  FormData,
  Headers,
  MessageChannel,
  MessageEvent,
  MessagePort,
  Performance,
  PerformanceEntry,
  PerformanceMark,
  PerformanceMeasure,
  PromiseRejectionEvent,
  Request,
  Response,
  SubtleCrypto,
  TextDecoder,
  TextEncoder,
  URL,
  URLSearchParams,
  // The global's own listeners (Deno's globalThis is an EventTarget): reportError's "error" events.
  addEventListener: (...args: Parameters<EventTarget["addEventListener"]>) =>
    globalEvents.addEventListener(...args),
  removeEventListener: (...args: Parameters<EventTarget["removeEventListener"]>) =>
    globalEvents.removeEventListener(...args),
  dispatchEvent: (event: Event) => globalEvents.dispatchEvent(event),
  onerror: null,
  atob,
  btoa,
  clearInterval,
  clearTimeout,
  console,
  crypto,
  fetch,
  navigator,
  performance,
  queueMicrotask,
  reportError,
  setInterval,
  setTimeout,
  structuredClone,
  ...websocketGlobals,
};

for (const [name, value] of Object.entries(GLOBALS)) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
Object.defineProperty(globalThis, "self", { value: globalThis, writable: true, configurable: true });
Object.defineProperty(globalThis, "Tessera", { get: currentCtx, configurable: true });
Object.defineProperty(globalThis, "URLPattern", urlPatternGlobal);

/** sandbox/program.ts's `TOP_LEVEL_HOOK`. */
const TOP_LEVEL_HOOK = "__tessera_top_level";

/** Every entry from the host: the kind, the request slot, then the kind's arguments. */
function dispatch(
  kind: string,
  slot: number,
  a?: unknown,
  b?: unknown,
  c?: unknown,
  d?: unknown,
  e?: unknown,
): unknown {
  if (kind !== "request") requests.enter(slot);
  switch (kind) {
    case "request":
      // A string: the request's answer, given at once (serve.ts, `answering`).
      return startRequest(slot, a as string, b as Uint8Array | null, c as string | undefined);
    case "settle":
      settle(a as number, b as boolean, c);
      return undefined;
    case "timer":
      fireTimer(a as number);
      return undefined;
    case "pull":
      pull(slot);
      return undefined;
    case "cancel":
      cancel(slot, String(a));
      return undefined;
    case "end":
      endRequest(slot);
      return undefined;
    case "ws":
      socketEvent(a as number, b as string, c, d, e);
      return undefined;
    case "boot":
      setBooting(false);
      delete (globalThis as Record<string, unknown>)[TOP_LEVEL_HOOK];
      return resolveHandler((globalThis as Record<string, unknown>)[MODULE_GLOBAL]);
    default:
      throw new TypeError(`unknown entry ${kind}`);
  }
}

Object.defineProperty(globalThis, "__tessera_boot", {
  configurable: true,
  writable: true,
  value: (host: HostFn, envJson: string, originMs: number) => {
    delete (globalThis as Record<string, unknown>).__tessera_boot;
    captureHost(host);
    setBooting(true);
    // A program whose top level awaits hands its promise here (sandbox/program.ts); gone at "boot".
    Object.defineProperty(globalThis, TOP_LEVEL_HOOK, { value: awaitTopLevel, configurable: true });
    setEnv(JSON.parse(envJson) as Record<string, string>);
    setTimeOrigin(originMs);
    // WebAssembly's promise-returning functions, made to settle (why: wasm.ts).
    installWebAssembly();
    return dispatch;
  },
});
