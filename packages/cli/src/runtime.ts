// runtime/index.ts for cli/functions-command.ts in the bundle: of the runtime, a deploy needs only
// to stop the bundler it started. A dynamic import keeps a whole module, so the runtime's index
// (the function host, the sandbox, isolated-vm) would otherwise come with it.
export { stopCompiler } from "../../../runtime/compile.ts";
