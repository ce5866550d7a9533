// vitest's setup file (vitest.config.ts): runs in every test worker before its test files, as
// bin/tessera.js does at process start, so isolates in tests run as they do in the server.
import { setProcessV8Flags } from "../../sandbox/v8-flags.ts";

setProcessV8Flags();
