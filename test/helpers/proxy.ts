import { connect, createServer, type AddressInfo, type Socket } from "node:net";

/**
 * A TCP proxy on 127.0.0.1 to a database or Redis whose connections can be cut, as a network
 * failure or a restart would: `cut()` drops the open ones; `down()` drops them and refuses new
 * ones (a stopped server's host) until `up()`.
 */
export interface CuttableProxy {
  /** The target's URL with the proxy's address in it. */
  url: string;
  cut(): void;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(target: URL): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on("error", () => to.destroy());
      from.on("close", () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cut = () => sockets.forEach((socket) => socket.destroy());
  return {
    url: url.toString(),
    cut,
    down() {
      refusing = true;
      cut();
    },
    up() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        server.close(() => resolve());
      }),
  };
}
