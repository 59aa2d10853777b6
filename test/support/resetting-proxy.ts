/**
 * `startResettingProxy(target, count)`: a TCP front for a stand-in model
 * server that resets the connection of each of the first `count` requests
 * before any response byte (a network failure before the stream starts:
 * fetch sees ECONNRESET), then forwards every later request unchanged.
 */
export interface ResettingProxy {
  /** http://127.0.0.1:<port>, forwarding to the target. */
  readonly url: string;
  /** Requests reset so far. */
  resets(): number;
  stop(): void;
}

interface ProxySide {
  /** Bytes not yet accepted by the socket (written on drain). */
  backlog: Uint8Array[];
  /** Request bytes that arrived before the upstream connection opened. */
  pending: Uint8Array[];
  peer?: Bun.Socket<ProxySide>;
  decided: boolean;
}

function writeAll(socket: Bun.Socket<ProxySide>, bytes: Uint8Array): void {
  if (socket.data.backlog.length > 0) {
    socket.data.backlog.push(bytes);
    return;
  }
  const written = socket.write(bytes);
  if (written < bytes.byteLength) socket.data.backlog.push(bytes.slice(Math.max(0, written)));
}

function drain(socket: Bun.Socket<ProxySide>): void {
  while (socket.data.backlog.length > 0) {
    const next = socket.data.backlog[0] as Uint8Array;
    const written = socket.write(next);
    if (written < next.byteLength) {
      socket.data.backlog[0] = next.slice(Math.max(0, written));
      return;
    }
    socket.data.backlog.shift();
  }
}

/**
 * A TCP front for `target` (a model server's url) that resets the
 * connection of each of the first `count` requests as soon as the request's
 * first bytes arrive (no response byte is sent), then forwards everything.
 * Idle connections (fetch.preconnect) are not counted.
 */
export function startResettingProxy(target: string, count: number): ResettingProxy {
  const port = Number(new URL(target).port);
  let resets = 0;
  const server = Bun.listen<ProxySide>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { backlog: [], pending: [], decided: false };
      },
      data(client, bytes) {
        const copy = new Uint8Array(bytes);
        if (!client.data.decided) {
          client.data.decided = true;
          if (resets < count) {
            resets++;
            client.terminate();
            return;
          }
          client.data.pending.push(copy);
          void Bun.connect<ProxySide>({
            hostname: "127.0.0.1",
            port,
            data: { backlog: [], pending: [], decided: true, peer: client },
            socket: {
              open(upstream) {
                const waiting = client.data.pending.splice(0);
                client.data.peer = upstream;
                for (const piece of waiting) writeAll(upstream, piece);
              },
              data(upstream, answer) {
                if (upstream.data.peer) writeAll(upstream.data.peer, new Uint8Array(answer));
              },
              drain,
              close(upstream) {
                upstream.data.peer?.end();
              },
              error(upstream) {
                upstream.data.peer?.end();
              },
            },
          }).catch(() => client.end());
          return;
        }
        if (client.data.peer) writeAll(client.data.peer, copy);
        else client.data.pending.push(copy);
      },
      drain,
      close(client) {
        client.data.peer?.end();
      },
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    resets: () => resets,
    stop: () => server.stop(true),
  };
}
