import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server (PostgreSQL in the fault tests), to
 * make it unreachable or silent and bring it back without touching the server
 * itself, which other tests and processes share:
 * - `cut()` drops every open connection and refuses new ones (as a stopped
 *   database does: connection refused);
 * - `silence()` keeps every connection open and accepts new ones, but relays
 *   no byte either way (a hung database, or a black-holed network path:
 *   nothing is refused, nothing ever answers);
 * - `restore()` relays again: listens again after a cut; after a silence,
 *   closes the silenced connections (their protocol state is lost, as a
 *   client's would be) and relays new ones.
 */
export interface TcpProxy {
  /** The port clients connect to (127.0.0.1). */
  readonly port: number;
  /** Destroys every relayed connection and stops listening; resolves once closed. */
  cut(): Promise<void>;
  /** Stops relaying bytes, keeping connections open and accepting new ones. */
  silence(): void;
  /** Relays again (after `cut` or `silence`). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * @param target where connections are relayed to
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  /** Client connections accepted while silent, each with its upstream when it had one. */
  const silenced = new Set<Socket>();
  let silent = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy()).on('close', () => {
      sockets.delete(socket);
      silenced.delete(socket);
    });
  };
  const relay = (client: Socket) => {
    track(client);
    if (silent) {
      silenced.add(client);
      client.resume(); // read and drop what the client sends
      return;
    }
    const upstream = connect(target.port, target.host);
    track(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    // Bytes flow only while not silent; while silent they are read and dropped.
    client.on('data', (bytes: Buffer) => {
      if (silent) silenced.add(client);
      else upstream.write(bytes);
    });
    upstream.on('data', (bytes: Buffer) => {
      if (silent) silenced.add(client);
      else client.write(bytes);
    });
  };
  let server: Server = createServer(relay);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  let listening = true;

  const cut = async () => {
    silent = false;
    if (!listening) return;
    listening = false;
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await closed;
  };

  return {
    port,
    cut,
    silence() {
      silent = true;
    },
    async restore() {
      if (silent) {
        silent = false;
        for (const socket of silenced) socket.destroy();
        silenced.clear();
      }
      if (listening) return;
      server = createServer(relay);
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      listening = true;
    },
    close: cut,
  };
}
