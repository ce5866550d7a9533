/** JSON lines on stdout. Fields named like secrets are redacted before writing. */

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const SECRET_FIELD = /secret|password|token|authorization|api_?key|cookie/i;
/** Field names seen, and whether each is a secret's: a log line's few names are tested once each. */
const secretNames = new Map<string, boolean>();

function isSecretName(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(name);
    if (secretNames.size < 10_000) secretNames.set(name, secret);
  }
  return secret;
}

/** Copies `fields` into `into`, each secret's value redacted and each Error reduced to its name and message. */
function assignRedacted(into: LogFields, fields: LogFields): LogFields {
  for (const name in fields) {
    const value = fields[name];
    into[name] = isSecretName(name)
      ? "[redacted]"
      : value instanceof Error
        ? { name: value.name, message: value.message }
        : value;
  }
  return into;
}

export interface LoggerOptions {
  level: LogLevel;
  write?: (line: string) => void;
  base?: LogFields;
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  const write = options.write ?? stdoutLines();
  const base = assignRedacted({}, options.base ?? {});
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const record: LogFields = { time: new Date().toISOString(), level, msg };
    for (const name in base) record[name] = base[name];
    write(JSON.stringify(fields ? assignRedacted(record, fields) : record));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger({ ...options, write, base: { ...options.base, ...fields } }),
  };
}

export const silentLogger: Logger = createLogger({ level: "silent", write: () => {} });

/** A buffered chunk is written once it holds this much, without waiting for the end of the turn. */
const FLUSH_BYTES = 64 * 1024;

/**
 * Lines gathered and written together: once per turn of the event loop, or sooner past
 * FLUSH_BYTES, and at exit (an uncaught error and `process.exit` included). A write to
 * stdout is a system call (synchronous for pipes and files on Linux), and one per line
 * cost ~30 % of a trivial function's throughput with a request line each (bench/README.md).
 * pino's destination buffers the same way.
 */
export function createLineBuffer(
  writeChunk: (chunk: string) => void,
  schedule: (flush: () => void) => void = setImmediate,
): { write: (line: string) => void; flush: () => void } {
  let pending = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === "") return;
    const chunk = pending;
    pending = "";
    writeChunk(chunk);
  };
  return {
    write(line) {
      pending += line + "\n";
      if (pending.length >= FLUSH_BYTES) flush();
      else if (!scheduled) {
        scheduled = true;
        schedule(flush);
      }
    },
    flush,
  };
}

let stdout: ReturnType<typeof createLineBuffer> | undefined;

/** The process's stdout as a line buffer, flushed at exit; every logger without its own writer shares it. */
function stdoutLines(): (line: string) => void {
  if (!stdout) {
    const buffer = createLineBuffer((chunk) => process.stdout.write(chunk));
    process.on("exit", buffer.flush);
    stdout = buffer;
  }
  return stdout.write;
}
