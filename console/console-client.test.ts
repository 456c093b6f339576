import { describe, expect, test } from 'vitest';
import { ConsoleApiError, ConsoleClient, parseOriginLines, type FetchFunction } from './console-client.ts';

/** A fetch that records its calls and answers from a list, in order. */
function scriptedFetch(...responses: Response[]): { fetch: FetchFunction; calls: { url: string; init: RequestInit | undefined }[] } {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  return {
    calls,
    fetch: async (url, init) => {
      calls.push({ url, init });
      const response = responses.shift();
      if (!response) throw new Error('No scripted response left');
      return response;
    },
  };
}

function problemResponse(status: number, code: string, detail: string): Response {
  return new Response(JSON.stringify({ type: 'about:blank', title: 'Refused', status, code, detail }), {
    status,
    headers: { 'Content-Type': 'application/problem+json' },
  });
}

describe('parseOriginLines', () => {
  test('origins one per line with blanks, spaces and duplicates: the distinct origins in order', () => {
    expect(parseOriginLines(' https://shop.example.com \n\nhttp://localhost:5173\r\nhttps://*.example.com\nhttp://localhost:5173')).toEqual({
      ok: true,
      origins: ['https://shop.example.com', 'http://localhost:5173', 'https://*.example.com'],
    });
  });

  test.each(['shop.example.com', 'https://shop.example.com/path', 'ftp://example.com', 'https://*.com', 'https://user@example.com', 'null'])(
    'malformed %s: a message naming the line and the value',
    (origin) => {
      const parsed = parseOriginLines(`https://ok.example.com\n${origin}`);

      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? '' : parsed.message).toContain(`Line 2: "${origin}" is not an origin`);
    },
  );

  test('nothing but blank lines: asks for at least one origin', () => {
    const parsed = parseOriginLines('\n  \n');

    expect(parsed).toEqual({ ok: false, message: expect.stringContaining('at least one allowed origin') });
  });
});

describe('ConsoleClient', () => {
  test('issueToken: POST JSON to the knowledge base tokens route with the session cookie; the issued token back', async () => {
    const issued = { id: 'tok_1', token: 'kbw_secret', snippet: '<script></script>' };
    const { fetch, calls } = scriptedFetch(new Response(JSON.stringify(issued), { status: 201 }));
    const client = new ConsoleClient({ fetch });

    const result = await client.issueToken('docs/a', { allowed_origins: ['https://a.example'], ttl_minutes: 60, scope: ['public'] });

    expect(result).toEqual(issued);
    expect(calls[0]?.url).toBe('/console/api/knowledge-bases/docs%2Fa/tokens');
    expect(calls[0]?.init?.method).toBe('POST');
    expect(calls[0]?.init?.credentials).toBe('same-origin');
    expect(calls[0]?.init?.headers).toMatchObject({ 'Content-Type': 'application/json' });
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({ allowed_origins: ['https://a.example'], ttl_minutes: 60, scope: ['public'] });
  });

  test('a 400 problem: ConsoleApiError with the status, code and the server detail as message', async () => {
    const { fetch } = scriptedFetch(problemResponse(400, 'invalid_request', 'Allowed origin "x" is not an origin'));
    const client = new ConsoleClient({ fetch });

    const failure = await client.issueToken('docs', { allowed_origins: ['x'], ttl_minutes: 60, scope: ['public'] }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ConsoleApiError);
    expect(failure).toMatchObject({ status: 400, code: 'invalid_request', message: 'Allowed origin "x" is not an origin' });
  });

  test('currentUser signed out (401): undefined; signed in: the user', async () => {
    const { fetch } = scriptedFetch(
      problemResponse(401, 'unauthenticated', 'Sign in first'),
      new Response(JSON.stringify({ user: { id: 'u1', email: 'owner@example.com' } })),
    );
    const client = new ConsoleClient({ fetch });

    expect(await client.currentUser()).toBeUndefined();
    expect(await client.currentUser()).toEqual({ id: 'u1', email: 'owner@example.com' });
  });

  test('revokeToken: DELETE answered 204, no body read', async () => {
    const { fetch, calls } = scriptedFetch(new Response(null, { status: 204 }));

    await new ConsoleClient({ fetch }).revokeToken('docs', 'tok_1');

    expect(calls[0]).toMatchObject({ url: '/console/api/knowledge-bases/docs/tokens/tok_1', init: { method: 'DELETE' } });
  });

  test('removeMember: DELETE to the member route, the user id encoded; a 400 carries the server sentence', async () => {
    const { fetch, calls } = scriptedFetch(
      new Response(null, { status: 204 }),
      problemResponse(400, 'invalid_request', 'Knowledge base "docs" needs at least one owner; make someone else owner first'),
    );
    const client = new ConsoleClient({ fetch });

    await client.removeMember('docs', 'usr/1');
    const failure = await client.removeMember('docs', 'usr_owner').catch((error: unknown) => error);

    expect(calls[0]).toMatchObject({ url: '/console/api/knowledge-bases/docs/members/usr%2F1', init: { method: 'DELETE' } });
    expect(failure).toMatchObject({ status: 400, message: expect.stringContaining('needs at least one owner') });
  });

  test('issuePreviewToken: POST { scope } to the preview route; the preview token back', async () => {
    const issued = { id: 'tok_p', token: 'kbw_preview', purpose: 'preview', allowed_origins: ['http://console.test'] };
    const { fetch, calls } = scriptedFetch(new Response(JSON.stringify(issued), { status: 201 }));

    const result = await new ConsoleClient({ fetch }).issuePreviewToken('docs', ['public', 'workspace']);

    expect(result).toEqual(issued);
    expect(calls[0]).toMatchObject({ url: '/console/api/knowledge-bases/docs/tokens/preview', init: { method: 'POST', credentials: 'same-origin' } });
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({ scope: ['public', 'workspace'] });
  });

  test('a non-problem error body (a proxy page): the status line as message', async () => {
    const { fetch } = scriptedFetch(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));

    await expect(new ConsoleClient({ fetch }).listKnowledgeBases()).rejects.toMatchObject({ status: 502, message: 'The server answered 502 Bad Gateway' });
  });

  test('network failure: ConsoleApiError with status 0', async () => {
    const client = new ConsoleClient({
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });

    await expect(client.listKnowledgeBases()).rejects.toMatchObject({ status: 0, message: expect.stringContaining('fetch failed') });
  });
});
