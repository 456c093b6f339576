import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Baseline of the stream figures of `npm run bench`: the least a Node.js
 * server can do to hold a server-sent-events stream open, with `node:http`
 * alone - read the request body, write the SSE headers, then a `: ping`
 * comment every 15 s until the client goes (the same heartbeat as
 * server/api/sse-writer.ts). Questions starting with `IDLE:` are held open;
 * any other gets one token frame and `done` at once.
 *
 * Runs in its own process (forked with `--expose-gc`) so its memory is its
 * own; answers `{type: 'rss'}` over IPC with its RSS in bytes after a full GC.
 */
const HEARTBEAT_MILLISECONDS = 15_000;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const { question } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { question: string };
    response.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform' });
    if (!question.startsWith('IDLE:')) {
      response.write(`event: token\ndata: ${JSON.stringify({ type: 'token', text: 'A constant answer.' })}\n\n`);
      response.end('event: done\ndata: {"type":"done","abstained":false}\n\n');
      return;
    }
    response.flushHeaders();
    let timer = setTimeout(function ping() {
      response.write(': ping\n\n');
      timer = setTimeout(ping, HEARTBEAT_MILLISECONDS);
    }, HEARTBEAT_MILLISECONDS);
    response.on('close', () => clearTimeout(timer));
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');

process.on('message', (message: { type: string }) => {
  if (message.type === 'rss') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ type: 'rss', bytes: process.memoryUsage().rss });
  } else if (message.type === 'stop') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
