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

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_FIELD.test(key)) out[key] = "[redacted]";
    else if (value instanceof Error) out[key] = { name: value.name, message: value.message };
    else out[key] = value;
  }
  return out;
}

export interface LoggerOptions {
  level: LogLevel;
  write?: (line: string) => void;
  base?: LogFields;
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  const write = options.write ?? ((line: string) => process.stdout.write(line + "\n"));
  const base = options.base ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const record = { time: new Date().toISOString(), level, msg, ...redact({ ...base, ...fields }) };
    write(JSON.stringify(record));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger({ ...options, write, base: { ...base, ...fields } }),
  };
}

export const silentLogger: Logger = createLogger({ level: "silent" });
