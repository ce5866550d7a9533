import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { endOfTurnResponses } from "../../api/end-of-turn.ts";

describe("endOfTurnResponses", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A real server whose handler is `handle`; resolves to its base URL. */
  const listen = (handle: (path: string, res: ServerResponse) => void) =>
    new Promise<string>((resolve) => {
      server = createServer({ keepAlive: false, ServerResponse: endOfTurnResponses() }, (req, res) =>
        handle(req.url ?? "/", res),
      );
      server.listen(0, "127.0.0.1", () =>
        resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`),
      );
    });

  it("ends a response once the turn is over, with its body, and calls back at finish", async () => {
    const states: string[] = [];
    const url = await listen((_, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      expect(res.end("hello", () => states.push("finished"))).toBe(res);
      states.push(`ended: ${res.writableEnded}`);
      setImmediate(() => states.push(`ended: ${res.writableEnded}`));
    });
    const response = await fetch(url);
    expect(await response.text()).toBe("hello");
    expect(response.headers.get("content-type")).toBe("text/plain");
    // Not ended when end() returns; ended by the next turn, and its callback called at finish.
    expect(states[0]).toBe("ended: false");
    expect(states.slice(1).sort()).toEqual(["ended: true", "finished"]);
  });

  it("ends after what was written, in every form end takes", async () => {
    const url = await listen((path, res) => {
      if (path === "/written") {
        res.write("a");
        res.end("b", "utf8");
      } else if (path === "/callback") res.end(() => undefined);
      else res.end();
    });
    for (const [path, body] of [
      ["/written", "ab"],
      ["/callback", ""],
      ["/bare", ""],
    ]) {
      const response = await fetch(url + path!);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(body);
    }
  });

  it("ends every response of the turn, each with its own body, bytes and null alike", async () => {
    const held: Array<[string, ServerResponse]> = [];
    const url = await listen((path, res) => {
      held.push([path, res]);
      if (held.length < 3) return;
      // Three responses ended in one turn.
      for (const [name, waiting] of held.splice(0)) {
        waiting.writeHead(name === "/empty" ? 204 : 200);
        waiting.end(name === "/bytes" ? new TextEncoder().encode("bytes") : name === "/empty" ? null : name);
      }
    });
    const [text, bytes, empty] = await Promise.all(
      ["/text", "/bytes", "/empty"].map(async (path) => {
        const response = await fetch(url + path);
        return [response.status, await response.text()];
      }),
    );
    expect(text).toEqual([200, "/text"]);
    expect(bytes).toEqual([200, "bytes"]);
    expect(empty).toEqual([204, ""]);
  });

  it("destroys a response that fails to end and still ends the others", async () => {
    const held: Array<[string, ServerResponse]> = [];
    const url = await listen((path, res) => {
      held.push([path, res]);
      if (held.length < 2) return;
      for (const [name, waiting] of held.splice(0)) {
        if (name === "/bad") {
          // Node refuses to end a body shorter than its declared length.
          waiting.strictContentLength = true;
          waiting.writeHead(200, { "content-length": "10" });
        }
        waiting.end("short");
      }
    });
    const [bad, good] = await Promise.allSettled([fetch(url + "/bad"), fetch(url + "/good")]);
    expect(bad.status).toBe("rejected");
    expect(good.status).toBe("fulfilled");
    expect(await (good as PromiseFulfilledResult<Response>).value.text()).toBe("short");
  });
});
