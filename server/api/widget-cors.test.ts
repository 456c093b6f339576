import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { widgetCors } from './widget-cors.ts';

/**
 * The widget endpoints' CORS on a real HTTP server: a page on another origin
 * must be able to read `Retry-After` (the widget counts it down on its retry
 * button, docs/widget.md) and `WWW-Authenticate`; browsers hide every
 * response header that `Access-Control-Expose-Headers` does not name, beyond
 * the CORS-safelisted few.
 */
let server: Server;
let baseUrl: string;
const PAGE_ORIGIN = 'https://shop.example.com';

beforeAll(async () => {
  const app = express();
  app.use(widgetCors());
  app.post('/busy', (_request, response) => {
    response.status(429).set('Retry-After', '42').json({ code: 'rate_limited' });
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('widgetCors', () => {
  test('refused request from a page on another origin: its origin echoed, Retry-After and WWW-Authenticate exposed to it', async () => {
    const response = await fetch(`${baseUrl}/busy`, { method: 'POST', headers: { Origin: PAGE_ORIGIN } });

    expect(response.status).toBe(429);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    expect(exposed).toEqual(expect.arrayContaining(['retry-after', 'www-authenticate']));
    expect(response.headers.get('retry-after')).toBe('42');
  });

  test('preflight: allowed for the token headers, no credentials, cached 10 minutes', async () => {
    const response = await fetch(`${baseUrl}/busy`, {
      method: 'OPTIONS',
      headers: { Origin: PAGE_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });
});
