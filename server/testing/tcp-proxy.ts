import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server (PostgreSQL in the fault tests), to
 * make it unreachable and bring it back without touching the server itself,
 * which other tests and processes share: `cut()` drops every open connection
 * and refuses new ones (as a stopped database does: connection refused),
 * `restore()` listens again on the same port.
 */
export interface TcpProxy {
  /** The port clients connect to (127.0.0.1). */
  readonly port: number;
  /** Connections currently relayed. */
  readonly openConnections: number;
  /** Destroys every relayed connection and stops listening; resolves once closed. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * @param target where connections are relayed to
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const relay = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  let server: Server = createServer(relay);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  let listening = true;

  const cut = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await closed;
  };

  return {
    port,
    get openConnections() {
      return sockets.size / 2;
    },
    cut,
    async restore() {
      if (listening) return;
      server = createServer(relay);
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      listening = true;
    },
    close: cut,
  };
}
