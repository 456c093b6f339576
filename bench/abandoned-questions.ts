import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Abandoned questions for `npm run bench` (bench/README.md): a client that posts a
 * valid question and closes its connection a few milliseconds later, without
 * reading the answer, as a visitor leaving the page (or a hostile script)
 * does.
 */

/**
 * Posts `body` to `url` on a fresh connection and closes it `afterMs` later.
 *
 * @param url the endpoint (`http://host:port/path`)
 * @param headers request headers (the token, the content type)
 * @param body the JSON request body
 * @param afterMs milliseconds between sending the request and closing the connection
 */
export async function abandonQuestion(url: string, headers: Record<string, string>, body: string, afterMs: number): Promise<void> {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const lines = Object.entries({ ...headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) }).map(([name, value]) => `${name}: ${value}`);
  socket.write(`POST ${target.pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  await sleep(afterMs);
  socket.destroy();
}

/**
 * Abandons questions from `clients` concurrent clients until `count` have
 * been abandoned, or until `stop()` when `count` is Infinity; each waits 1-4
 * ms (cycling) before closing.
 *
 * @param bodies request bodies, used in turn
 * @returns `done` (resolves with the number abandoned) and `stop()`
 */
export function abandonQuestions(
  url: string,
  headers: Record<string, string>,
  bodies: readonly string[],
  clients: number,
  count: number,
): { done: Promise<number>; stop(): void } {
  let running = true;
  let abandoned = 0;
  const loops = Array.from({ length: clients }, async () => {
    while (running && abandoned < count) {
      const index = abandoned;
      abandoned += 1;
      await abandonQuestion(url, headers, bodies[index % bodies.length]!, 1 + (index % 4));
    }
  });
  return {
    done: Promise.all(loops).then(() => abandoned),
    stop() {
      running = false;
    },
  };
}
