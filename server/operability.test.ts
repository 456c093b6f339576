import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readFrames } from './testing/read-frames.ts';
import { createWidgetFixture, type WidgetFixture } from './testing/widget-fixture.ts';

/**
 * What an operator sees of the service (docs/operations.md "Logs, metrics and
 * health"): a log line
 * per request under a request id, metrics that move with traffic,
 * liveness and readiness.
 */

const QUESTION = 'How do I read a file?';
const ORIGIN = { Origin: 'http://localhost:5173' };
let fixture: WidgetFixture;
const logLines: string[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
  fixture = await createWidgetFixture({ logger });
});
afterAll(async () => {
  await fixture.close();
});

/** The logged request lines (pino-http's), parsed. */
function requestLines(): { req?: { id: string; method: string; path: string }; res?: { statusCode: number }; responseTime?: number }[] {
  return logLines.map((line) => JSON.parse(line) as { req?: { id: string; method: string; path: string } }).filter((line) => line.req !== undefined);
}

/** The value of one sample of the Prometheus text, 0 when absent. */
async function sample(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${fixture.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `) || (labels === '' && candidate.startsWith(`${name} `)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('request log', () => {
  test('a question: one line with method, path, status, time and the request id the client sent, which the response returns; never the token or the question', async () => {
    // Arrange
    const { token } = await fixture.issue();

    // Act
    const response = await fixture.post('query', { question: QUESTION }, { token, headers: { ...ORIGIN, 'X-Request-Id': 'support-ticket-42' } });
    await response.json();

    // Assert
    expect(response.headers.get('x-request-id')).toBe('support-ticket-42');
    const line = requestLines().find((candidate) => candidate.req?.id === 'support-ticket-42');
    expect(line).toMatchObject({ req: { method: 'POST', path: '/kb-api/api/v1/kb/docs/widget/query' }, res: { statusCode: 200 } });
    expect(line?.responseTime).toBeGreaterThanOrEqual(0);
    const everything = logLines.join('\n');
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(QUESTION);
  });

  test('no request id, or one that is not an id: a new UUID, returned and logged', async () => {
    // Act
    const missing = await fetch(`${fixture.baseUrl}/openapi.json`);
    const malformed = await fetch(`${fixture.baseUrl}/openapi.json`, { headers: { 'X-Request-Id': 'not an id\twith spaces' } });

    // Assert
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect(missing.headers.get('x-request-id')).toMatch(uuid);
    expect(malformed.headers.get('x-request-id')).toMatch(uuid);
    expect(requestLines().map((line) => line.req?.id)).toContain(malformed.headers.get('x-request-id'));
  });
});

describe('metrics', () => {
  test('GET /metrics: Prometheus text whose request and answer counts move with traffic; no stream left open', async () => {
    // Arrange
    const { token } = await fixture.issue();
    const route = 'method="POST",route="/kb-api/api/v1/kb/{kbId}/widget/query",status="200"';
    const requestsBefore = await sample('kb_http_request_duration_seconds_count', route);
    const answersBefore = await sample('kb_answers_total', 'provenance="generated"');

    // Act
    await (await fixture.post('query', { question: QUESTION }, { token, headers: ORIGIN })).json();
    await readFrames(await fixture.post('query/stream', { question: QUESTION }, { token, headers: ORIGIN }));
    await (await fixture.post('query', { question: QUESTION }, { token: 'kbw_not-a-token', headers: ORIGIN })).json();

    // Assert
    const response = await fetch(`${fixture.baseUrl}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await sample('kb_http_request_duration_seconds_count', route)).toBe(requestsBefore + 1);
    expect(await sample('kb_answers_total', 'provenance="generated"')).toBe(answersBefore + 2);
    expect(await sample('kb_http_request_duration_seconds_count', 'method="POST",route="/kb-api/api/v1/kb/{kbId}/widget/query",status="401"')).toBeGreaterThanOrEqual(1);
    expect(await sample('kb_open_streams', '')).toBe(0);
    expect(await sample('process_cpu_seconds_total', '')).toBeGreaterThan(0);
  });
});

describe('liveness and readiness', () => {
  test('GET /healthz and /readyz: ok and ready while the store answers', async () => {
    expect(await (await fetch(`${fixture.baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${fixture.baseUrl}/readyz`)).json()).toEqual({ status: 'ready' });
  });
});
