import structuredCloneImpl from "@ungap/structured-clone";
import { captureHost, hostSync, requests, settle, type HostFn } from "./bridge.ts";
import { Blob, File, FormData } from "./blob.ts";
import { console } from "./console.ts";
import { Crypto, CryptoKey, SubtleCrypto, crypto } from "./crypto.ts";
import { DOMException } from "./dom-exception.ts";
import { TextDecoder, TextEncoder, atob, btoa } from "./encoding.ts";
import { AbortController, AbortSignal, Event, EventTarget, reportError } from "./events.ts";
import { fetch } from "./fetch.ts";
import { Headers } from "./headers.ts";
import { Request, Response } from "./http.ts";
import {
  Deno,
  MODULE_GLOBAL,
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

/**
 * The in-isolate web platform (WinterTC minimum common API + the Deno subset). This
 * script runs once, in the V8 startup snapshot; an isolate booted from it then gets
 * the host function through `__tessera_boot`, which removes itself from the global
 * and returns the dispatcher the host keeps. Names on the global are all longer than
 * one character: isolated-vm 5's snapshots drop one-letter global properties.
 */
function structuredClone(value: unknown, options?: { transfer?: unknown[] }): unknown {
  void options;
  try {
    return structuredCloneImpl(value);
  } catch (error) {
    throw new DOMException((error as Error).message, "DataCloneError");
  }
}

let timeOriginMs = 0;
const performance = Object.freeze({
  now: (): number => hostSync("now", 0) as number,
  get timeOrigin() {
    return timeOriginMs;
  },
  toJSON: () => ({ timeOrigin: timeOriginMs }),
});

const navigator = Object.freeze({
  userAgent: "Tessera/1.0 (edge function)",
  hardwareConcurrency: 1,
  language: "en-US",
  languages: ["en-US"],
});

const GLOBALS: Record<string, unknown> = {
  ...Object.fromEntries(Object.entries(streams).filter(([name]) => /^[A-Z]/.test(name))),
  AbortController,
  AbortSignal,
  Blob,
  Crypto,
  CryptoKey,
  DOMException,
  Deno,
  Event,
  EventTarget,
  File,
  FormData,
  Headers,
  Request,
  Response,
  SubtleCrypto,
  TextDecoder,
  TextEncoder,
  URL,
  URLSearchParams,
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
};

for (const [name, value] of Object.entries(GLOBALS)) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
Object.defineProperty(globalThis, "self", { value: globalThis, writable: true, configurable: true });
Object.defineProperty(globalThis, "Tessera", { get: currentCtx, configurable: true });

/** Every entry from the host: the kind, the request slot, then the kind's arguments. */
function dispatch(
  kind: string,
  slot: number,
  a?: unknown,
  b?: unknown,
  c?: unknown,
  d?: unknown,
  e?: unknown,
  f?: unknown,
): unknown {
  if (kind !== "request") requests.enter(slot);
  switch (kind) {
    case "request":
      startRequest(
        slot,
        a as string,
        b as string,
        c as string,
        d as Uint8Array | null,
        e as string,
        f as string,
      );
      return undefined;
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
    case "boot":
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
    setEnv(JSON.parse(envJson) as Record<string, string>);
    timeOriginMs = originMs;
    return dispatch;
  },
});
