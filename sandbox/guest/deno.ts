import { inspect } from "./console.ts";

/**
 * The `Deno` members that need no host: `errors`, `inspect`, `cwd`, `exit` (serve.ts puts
 * them on `Deno` beside `serve` and `env`).
 */

/** Deno 2's `Deno.errors`: Error subclasses whose `name` is the class's name. */
const ERROR_NAMES = [
  "NotFound",
  "PermissionDenied",
  "ConnectionRefused",
  "ConnectionReset",
  "ConnectionAborted",
  "NotConnected",
  "AddrInUse",
  "AddrNotAvailable",
  "BrokenPipe",
  "AlreadyExists",
  "InvalidData",
  "TimedOut",
  "Interrupted",
  "WriteZero",
  "WouldBlock",
  "UnexpectedEof",
  "BadResource",
  "Http",
  "Busy",
  "NotSupported",
  "FilesystemLoop",
  "IsADirectory",
  "NetworkUnreachable",
  "NotADirectory",
  "NotCapable",
] as const;

type DenoErrorClass = new (message?: string, options?: { cause?: unknown }) => Error;

function errorClass(name: string): DenoErrorClass {
  // A computed key names the class (`.name`), as Deno's `class NotFound extends Error`.
  const named = {
    [name]: class extends Error {
      constructor(message?: string, options?: { cause?: unknown }) {
        super(message, options);
        this.name = name;
      }
    },
  };
  const cls = named[name]!;
  // Said again: the bundler's renaming must not leave it to the computed key.
  Object.defineProperty(cls, "name", { value: name, configurable: true });
  return cls;
}

type DenoErrors = Readonly<Record<(typeof ERROR_NAMES)[number], DenoErrorClass>>;
let made: DenoErrors | undefined;

/** `Deno.errors`, made on first use: few functions touch them, and out of the snapshot they save ~11 kB of it. */
export function errors(): DenoErrors {
  return (made ??= Object.freeze(
    Object.fromEntries(ERROR_NAMES.map((name) => [name, errorClass(name)])) as Record<
      (typeof ERROR_NAMES)[number],
      DenoErrorClass
    >,
  ));
}

/**
 * `Deno.inspect(value, { depth })`: the console's formatter (strings quoted, as Deno's
 * inspect shows them). Output is never coloured; of Deno's options only `depth` is read.
 */
export function denoInspect(value: unknown, options?: { depth?: number }): string {
  const depth = options?.depth;
  return inspect(value, 0, [], {
    quoteStrings: true,
    // Deno's (and Node's) depth: how many levels below the top are shown.
    ...(typeof depth === "number" && depth >= 0 ? { maxDepth: depth + 1 } : {}),
  });
}

/** The function's root: its files are the deploy's, and the deploy's root is `/`. */
export function cwd(): string {
  return "/";
}

/** A function answers requests; the process (and the isolate) are not its to end. */
export function exit(code?: number): never {
  throw new (errors().NotSupported)(
    `Deno.exit(${code === undefined ? "" : String(code)}) is not available in an edge function: ` +
      "a function cannot exit the process. Return a Response (or throw to fail the request).",
  );
}
