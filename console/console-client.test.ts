import { describe, expect, test } from 'vitest';
import { ConsoleApiError, ConsoleClient, parseOriginLines, type FetchFunction } from './console-client.ts';
import type { PreviewToken } from '../protocol/console-protocol.ts';

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

describe('ConsoleClient token list and preview tokens', () => {
  test('listTokens: the filters and cursor given sent as query parameters, those left empty not sent; the page back', async () => {
    const page = { tokens: [], total: 0 };
    const { fetch, calls } = scriptedFetch(Response.json(page), Response.json(page));
    const client = new ConsoleClient({ fetch });

    const first = await client.listTokens('docs');
    await client.listTokens('docs', { status: 'active', origin: 'localhost:8787', purpose: undefined, limit: 20, cursor: 'abc=' });

    expect(first).toEqual(page);
    expect(calls.map((call) => call.url)).toEqual([
      '/console/api/knowledge-bases/docs/tokens',
      '/console/api/knowledge-bases/docs/tokens?status=active&origin=localhost%3A8787&limit=20&cursor=abc%3D',
    ]);
  });

  /** A preview API issuing 10-minute tokens `kbw_preview_1`, `_2`, … and a clock the test moves. */
  function previewApi() {
    let issued = 0;
    const clock = { now: Date.UTC(2026, 10, 27, 10, 0) };
    const fetch: FetchFunction = async (url, init) => {
      if (init?.method === 'DELETE') return new Response(null, { status: 204 });
      issued += 1;
      // The server's clock is an hour off the page's: only the lifetime counts.
      const created = Date.UTC(2026, 10, 27, 11, 0);
      const token: PreviewToken = {
        id: `tok_p${issued}`,
        token: `kbw_preview_${issued}`,
        status: 'active',
        issuer: 'owner@example.com',
        allowed_origins: ['http://console.test'],
        scope: JSON.parse(String(init?.body)).scope,
        purpose: 'preview',
        created_at: new Date(created).toISOString(),
        expires_at: new Date(created + 10 * 60_000).toISOString(),
      };
      return Response.json(token, { status: 201 });
    };
    return { client: new ConsoleClient({ fetch, now: () => clock.now }), clock, issued: () => issued };
  }

  test('previewToken: reused for the same knowledge base and scope until 2 minutes before its lifetime ends, then a new one', async () => {
    const { client, clock, issued } = previewApi();

    const first = await client.previewToken('docs', ['public']);
    clock.now += 8 * 60_000 - 1;
    const reused = await client.previewToken('docs', ['public']);
    clock.now += 1;
    const renewed = await client.previewToken('docs', ['public']);

    expect([first.token.token, first.issued]).toEqual(['kbw_preview_1', true]);
    expect([reused.token.token, reused.issued]).toEqual(['kbw_preview_1', false]);
    expect([renewed.token.token, renewed.issued]).toEqual(['kbw_preview_2', true]);
    expect(issued()).toBe(2);
  });

  test('previewToken: another scope or knowledge base gets its own; calls at once share one; fresh issues a new one', async () => {
    const { client, issued } = previewApi();

    const together = await Promise.all([client.previewToken('docs', ['public']), client.previewToken('docs', ['public'])]);
    const wider = await client.previewToken('docs', ['public', 'workspace']);
    const sameWider = await client.previewToken('docs', ['workspace', 'public']);
    const other = await client.previewToken('other', ['public']);
    const fresh = await client.previewToken('docs', ['public'], { fresh: true });

    expect(together.map((held) => held.token.token)).toEqual(['kbw_preview_1', 'kbw_preview_1']);
    expect([wider.token.token, sameWider.token.token, other.token.token, fresh.token.token]).toEqual([
      'kbw_preview_2',
      'kbw_preview_2',
      'kbw_preview_3',
      'kbw_preview_4',
    ]);
    expect(issued()).toBe(4);
  });

  test('previewToken after its token was revoked through the client, or after signing out: a new one', async () => {
    const { client } = previewApi();
    const first = await client.previewToken('docs', ['public']);

    await client.revokeToken('docs', first.token.id);
    const afterRevoke = await client.previewToken('docs', ['public']);
    await client.signOut();
    const afterSignOut = await client.previewToken('docs', ['public']);

    expect([afterRevoke.token.token, afterSignOut.token.token]).toEqual(['kbw_preview_2', 'kbw_preview_3']);
  });
});
