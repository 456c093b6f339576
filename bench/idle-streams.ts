import { request, type ClientRequest } from 'node:http';

/** Streams held open by {@link openIdleStreams}. */
export interface HeldStreams {
  /** How many are open (their response headers arrived with status 200). */
  readonly count: number;
  /** Closes them all from the client side. */
  close(): void;
}

/**
 * Opens `count` answer streams on `url` and keeps them open without reading
 * past the headers, `concurrency` connection attempts at a time (so the
 * server's accept queue is not flooded). Each is its own TCP connection.
 *
 * @param body the JSON request body sent with each (a question the server holds open)
 * @throws Error when a stream is refused (status other than 200) or a connection fails
 */
export async function openIdleStreams(
  url: string,
  headers: Record<string, string>,
  body: string,
  count: number,
  concurrency = 200,
): Promise<HeldStreams> {
  const requests: ClientRequest[] = [];
  let next = 0;
  const openOne = () =>
    new Promise<void>((resolve, reject) => {
      const client = request(url, { method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(body) }, agent: false });
      requests.push(client);
      client.once('error', reject);
      client.once('response', (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`stream refused with status ${response.statusCode}`));
          return;
        }
        client.off('error', reject);
        client.on('error', () => undefined);
        response.on('data', () => undefined);
        resolve();
      });
      client.end(body);
    });
  const worker = async () => {
    while (next < count) {
      next += 1;
      await openOne();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return {
    count: requests.length,
    close() {
      for (const client of requests) client.destroy();
    },
  };
}
