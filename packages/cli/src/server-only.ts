// Stands in for cli/functions-serve.ts and cli/functions-remote.ts in the bundle: they need
// Tessera's isolates, and runDeveloperCli answers `functions serve` before reaching them.
const refuse = (): never => {
  throw new Error("tessera functions serve needs the Tessera server package (its isolates)");
};

export const serveFunction = refuse;
export const connectRemote = refuse;
export const connectServeTarget = refuse;
