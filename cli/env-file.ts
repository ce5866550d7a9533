import { SECRET_NAME } from "../runtime/index.ts";

/**
 * A `.env` file as `functions serve` reads it for the function's `Deno.env` (the local stand-in for
 * `PUT /v1/functions/{ref}/secrets`; `supabase functions serve --env-file` reads one the same way):
 * `NAME=value` lines, `#` comments and blank lines skipped, an optional `export ` before the name,
 * a value in single or double quotes taken as written (double quotes also read `\n`). Names follow
 * the secrets' rule, so what runs locally is what a deploy accepts. A line that is none of these is
 * an error naming its line number. Not `node:util`'s `parseEnv`: it answers differently on Node 20
 * and 24 for a line that is not `NAME=value` (20 folds it into the next key), and says nothing of it.
 *
 * @example
 *   parseEnvFile('# local\nTOKEN="a b"\nexport MODE=dev'); // { TOKEN: "a b", MODE: "dev" }
 */
export function parseEnvFile(text: string, file = ".env"): Record<string, string> {
  const env: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const match = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/.exec(line);
    if (!match || !SECRET_NAME.test(match[1]!)) {
      throw new Error(
        `${file}:${index + 1}: expected NAME=value, NAME letters, digits and '_', not starting with a digit`,
      );
    }
    env[match[1]!] = valueOf(match[2]!);
  });
  return env;
}

function valueOf(written: string): string {
  const quote = written[0];
  if ((quote === '"' || quote === "'") && written.length >= 2 && written.endsWith(quote)) {
    const inner = written.slice(1, -1);
    return quote === '"' ? inner.replace(/\\n/g, "\n").replace(/\\"/g, '"') : inner;
  }
  // Unquoted: a ` #` starts a comment.
  return written.replace(/\s+#.*$/, "");
}
