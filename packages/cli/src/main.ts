// The `tessera` binary of @tessera/cli (bundled by scripts/build-cli.ts into dist/tessera.mjs).
import { runDeveloperCli } from "../../../cli/developer.ts";

try {
  process.exitCode = await runDeveloperCli(process.argv.slice(2), process.env);
} catch (error) {
  // Whatever escaped a command is still one line: the stack is not the user's to read.
  console.error(`error: ${(error as Error).message}`);
  process.exitCode = 1;
}
