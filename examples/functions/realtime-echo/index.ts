/**
 * realtime-echo: a WebSocket endpoint with `Deno.upgradeWebSocket`, and a page that uses it.
 * Handler style: `Deno.serve`.
 *
 *   GET …/ (Upgrade: websocket)  the socket: "echo: <text>" for text, the bytes reversed for
 *                                binary, "joined"/"left" counts to every socket in the room
 *   GET …/                       a small HTML page that opens the socket and echoes a line
 *   GET …/plain                  what Deno.upgradeWebSocket says to a request that is no upgrade
 *
 * Sockets of one isolate share its module state (the `room` below): on Tessera, every socket
 * of one deployed version on one server; on `deno run`, the process's.
 */
const INVOKE_PREFIX = /^\/v1\/functions\/[^/]+\/invoke(?=\/|$)/;
const room = new Set<WebSocket>();

function broadcast(text: string): void {
  for (const peer of room) if (peer.readyState === WebSocket.OPEN) peer.send(text);
}

function accept(req: Request): Response {
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => {
    room.add(socket);
    broadcast(`joined: ${room.size}`);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === "string") socket.send(`echo: ${event.data}`);
    else socket.send(new Uint8Array(event.data as ArrayBuffer).reverse());
  };
  socket.onclose = () => {
    room.delete(socket);
    broadcast(`left: ${room.size}`);
  };
  return response;
}

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>realtime-echo</title>
<pre id="log"></pre>
<script>
  const url = new URL(location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(url);
  const log = (line) => (document.getElementById("log").textContent += line + "\\n");
  socket.onopen = () => socket.send("hello");
  socket.onmessage = (event) => log(event.data);
</script>
`;

Deno.serve((req) => {
  const path = new URL(req.url).pathname.replace(INVOKE_PREFIX, "") || "/";
  if (req.headers.get("upgrade")?.toLowerCase() === "websocket") return accept(req);
  if (path === "/plain") {
    try {
      Deno.upgradeWebSocket(req);
      return new Response("upgraded?", { status: 500 });
    } catch (error) {
      return Response.json(
        { name: (error as Error).name, message: (error as Error).message },
        { status: 400 },
      );
    }
  }
  return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
});
