/**
 * What a process costs PostgreSQL: a counting TCP proxy between it and the database.
 * The process connects to the meter's `url`; the meter passes every byte through and
 * counts, on the way, the statements it sends (each `Sync` of the extended protocol and
 * each simple `Query`: one round trip each, BEGIN and COMMIT included) and learns the
 * pid of the backend serving each connection (`BackendKeyData`), whose CPU it reads from
 * `/proc` as cpu.ts does for our own processes. PostgreSQL's background processes (WAL
 * writer, checkpointer) are not in it. Plain TCP only: a connection that asks for TLS is
 * passed through uncounted.
 */
import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { statCpuS } from "./cpu.ts";

export interface DbReading {
  /** Statements sent so far (Sync + Query messages): database round trips. */
  statements: number;
  /** CPU seconds used so far by the backends that served the metered connections. */
  backendCpuS: number;
  /** Connections opened through the meter so far. */
  connections: number;
}

export interface DbMeter {
  /** The database URL to give the metered process. */
  url: string;
  reading(): DbReading;
  close(): Promise<void>;
}

const PROTOCOL_3 = 196608;
const SYNC = 0x53; // 'S', client → server
const QUERY = 0x51; // 'Q'
const BACKEND_KEY_DATA = 0x4b; // 'K', server → client

export async function startDbMeter(databaseUrl: string): Promise<DbMeter> {
  const upstream = new URL(databaseUrl);
  let statements = 0;
  let connections = 0;
  let closedCpuS = 0;
  const backends = new Set<number>();
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    connections++;
    const db = connect(Number(upstream.port || 5432), upstream.hostname);
    sockets.add(client).add(db);
    let pid: number | undefined;
    const fromClient = new Frames(false, (type) => {
      if (type === SYNC || type === QUERY) statements++;
    });
    const fromDb = new Frames(true, (type, body) => {
      if (type !== BACKEND_KEY_DATA || !body) return;
      pid = body.readInt32BE(0);
      backends.add(pid);
      fromDb.stop(); // nothing else is needed from this side
    });
    client.on("data", (chunk: Buffer) => {
      fromClient.push(chunk);
      if (!db.write(chunk)) client.pause();
    });
    db.on("data", (chunk: Buffer) => {
      fromDb.push(chunk);
      if (!client.write(chunk)) db.pause();
    });
    db.on("drain", () => client.resume());
    client.on("drain", () => db.resume());
    const end = () => {
      if (pid !== undefined && backends.delete(pid)) closedCpuS += statCpuS(`/proc/${pid}/stat`) ?? 0;
      client.destroy();
      db.destroy();
      sockets.delete(client);
      sockets.delete(db);
    };
    client.on("close", end).on("error", end);
    db.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    reading: () => {
      let backendCpuS = closedCpuS;
      for (const pid of backends) backendCpuS += statCpuS(`/proc/${pid}/stat`) ?? 0;
      return { statements, backendCpuS, connections };
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The meters of processes started with one, by pid: the load runs read them at their window's edges. */
const meters = new Map<number, DbMeter>();

export function meterProcess(pid: number, meter: DbMeter): void {
  meters.set(pid, meter);
}

export function dbMeterOf(pid: number | undefined): DbMeter | undefined {
  return pid === undefined ? undefined : meters.get(pid);
}

/**
 * A message stream of the PostgreSQL protocol cut into messages: a type byte and an
 * int32 length (which counts itself), or, before the startup message, the length alone.
 * Only the headers are kept; a body is handed over only for BackendKeyData.
 */
class Frames {
  private readonly header = Buffer.alloc(5);
  private have = 0;
  private skip = 0;
  private body: Buffer | undefined;
  private bodyAt = 0;
  private type = 0;
  private stopped = false;

  constructor(
    private typed: boolean,
    private readonly onMessage: (type: number, body: Buffer | undefined) => void,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  push(chunk: Buffer): void {
    let at = 0;
    while (!this.stopped && at < chunk.length) {
      if (this.body) {
        const n = Math.min(this.body.length - this.bodyAt, chunk.length - at);
        chunk.copy(this.body, this.bodyAt, at, at + n);
        this.bodyAt += n;
        at += n;
        if (this.bodyAt === this.body.length) this.finish(this.body);
        continue;
      }
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      const headerSize = this.typed ? 5 : 4;
      const n = Math.min(headerSize - this.have, chunk.length - at);
      chunk.copy(this.header, this.have, at, at + n);
      this.have += n;
      at += n;
      if (this.have < headerSize) break;
      this.have = 0;
      this.type = this.typed ? this.header[0]! : 0;
      const rest = this.header.readInt32BE(this.typed ? 1 : 0) - 4;
      // Untyped: the startup family, whose first int32 says which (a body is always there).
      if (!this.typed || this.type === BACKEND_KEY_DATA) {
        this.body = Buffer.alloc(rest);
        this.bodyAt = 0;
        if (rest === 0) this.finish(this.body);
      } else {
        this.onMessage(this.type, undefined);
        this.skip = rest;
      }
    }
  }

  private finish(body: Buffer): void {
    this.body = undefined;
    if (this.typed) return this.onMessage(this.type, body);
    const code = body.length >= 4 ? body.readInt32BE(0) : 0;
    if (code === PROTOCOL_3)
      this.typed = true; // the startup message: typed messages follow
    else if (code === 80877103 || code === 80877104) this.stop(); // TLS or GSS asked: not counted
  }
}
