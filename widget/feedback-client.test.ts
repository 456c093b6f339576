import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FeedbackRequest, QueryResponse } from '../protocol/query-protocol.ts';
import { createWidgetFixture } from '../server/testing/widget-fixture.ts';
import { sendFeedback } from './feedback-client.ts';

/** Servers started by the current test; closed after it. */
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A `node:http` server answering every request with `status` and `body`; returns its base URL and what it received. */
async function startServer(status: number, body = '', headers: Record<string, string> = {}) {
  const received: { url: string | undefined; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(status, headers);
      response.end(body);
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const REPORT: FeedbackRequest = {
  kind: 'problem',
  question: 'How do I create a directory?',
  provenance: 'generated',
  source_span: { ref: 'opaque-Ref_1' },
  reason: 'broken_link',
};

describe('sendFeedback', () => {
  it('a report: POSTed as JSON to the feedback path with the token as Bearer, the span unchanged; 204 is sent', async () => {
    const { baseUrl, received } = await startServer(204);

    const outcome = await sendFeedback({ baseUrl: `${baseUrl}//`, kbId: 'docs kb', token: 'kbw_test' }, REPORT);

    expect(outcome).toEqual({ kind: 'sent' });
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe('/kb-api/api/v1/kb/docs%20kb/widget/feedback');
    expect(received[0]!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer kbw_test' });
    expect(received[0]!.headers.cookie).toBeUndefined();
    expect(JSON.parse(received[0]!.body)).toEqual(REPORT);
  });

  it('a problem+json refusal: refused with its status, code and Retry-After', async () => {
    const { baseUrl } = await startServer(429, JSON.stringify({ code: 'rate_limited' }), {
      'Content-Type': 'application/problem+json',
      'Retry-After': '12',
    });

    const outcome = await sendFeedback({ baseUrl, kbId: 'docs', token: 'kbw_test' }, REPORT);

    expect(outcome).toEqual({ kind: 'refused', status: 429, code: 'rate_limited', retryAfterSeconds: 12 });
  });

  it('a refusal whose body is not JSON: refused with code unknown', async () => {
    const { baseUrl } = await startServer(502, '<html>Bad gateway</html>');

    const outcome = await sendFeedback({ baseUrl, kbId: 'docs', token: 'kbw_test' }, REPORT);

    expect(outcome).toMatchObject({ kind: 'refused', status: 502, code: 'unknown' });
  });

  it('nothing listening: offline', async () => {
    const { baseUrl } = await startServer(204);
    for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));

    expect(await sendFeedback({ baseUrl, kbId: 'docs', token: 'kbw_test' }, REPORT)).toEqual({ kind: 'offline' });
  });

  it('real kb-widget app: a 👎 with the spans of a real answer is sent; the same with one span altered is refused as an invalid request', async () => {
    const fixture = await createWidgetFixture();
    try {
      const { token } = await fixture.issue();
      const endpoint = { baseUrl: fixture.baseUrl, kbId: 'docs', token };
      const answer = (await (await fixture.post('query', { question: 'How do I read a file?' }, { token })).json()) as QueryResponse;
      const spans = answer.citations.map((citation) => citation.source_span);
      const rating: FeedbackRequest = { kind: 'rating', question: 'How do I read a file?', provenance: answer.provenance, rating: 'down', reason: 'other', source_spans: spans };

      const sent = await sendFeedback(endpoint, rating);
      const altered = await sendFeedback(endpoint, { ...rating, source_spans: [{ ref: `${spans[0]!.ref.slice(0, -3)}abc` }] });

      expect(sent).toEqual({ kind: 'sent' });
      expect(altered).toMatchObject({ kind: 'refused', status: 400, code: 'invalid_request' });
    } finally {
      await fixture.close();
    }
  });
});
