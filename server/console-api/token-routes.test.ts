import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import type { IssuedToken, TokenList } from '../../protocol/console-protocol.ts';
import type { Problem } from '../../protocol/query-protocol.ts';
import { hashToken } from '../auth/widget-tokens.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * The token list at scale over real HTTP (docs/http-api.md "Tokens"): newest first, a
 * page at a time, filtered by status, origin and purpose, bad parameters
 * refused; expired preview and demo tokens deleted, embed tokens kept; the
 * snippet's expiry and `tokenProvider`. Each test has its own workspace
 * (server/testing/widget-fixture.ts: owner and editor alice on `docs`).
 */
const PASSWORD = 'correct horse battery staple';
const MINUTE = 60_000;

type Workspace = { fixture: WidgetFixture; list(query?: string): Promise<Response>; cookie: string };

/** One workspace for the bad-query tests, which store nothing. */
let badQueryWorkspace: Promise<Workspace> | undefined;
afterAll(async () => {
  await (await badQueryWorkspace)?.fixture.close();
});

/** @param perTest closed after the test (default); otherwise by the caller */
async function workspace(perTest = true): Promise<Workspace> {
  const fixture = await createWidgetFixture({ consolePasswords: { owner: PASSWORD, alice: PASSWORD }, tokenTtlCapMinutes: 120 });
  if (perTest) onTestFinished(() => fixture.close());
  const cookie = await fixture.signIn('owner@example.com', PASSWORD);
  const list = (query = '') =>
    fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/tokens${query}`, { headers: { Origin: fixture.baseUrl, Cookie: cookie } });
  return { fixture, list, cookie };
}

async function page(response: Promise<Response>): Promise<TokenList> {
  const answered = await response;
  expect(answered.status).toBe(200);
  return (await answered.json()) as TokenList;
}

describe('GET …/tokens', () => {
  test('25 tokens a minute apart: the 20 newest first with a next_cursor, then the 5 oldest without one; limit=10 gives three pages', async () => {
    // Arrange
    const { fixture, list } = await workspace();
    const ids: string[] = [];
    for (let index = 0; index < 25; index += 1) {
      ids.push((await fixture.issue()).id);
      fixture.advance(MINUTE);
    }
    const newestFirst = [...ids].reverse();

    // Act
    const first = await page(list());
    const second = await page(list(`?cursor=${encodeURIComponent(first.next_cursor!)}`));
    const small: string[][] = [];
    let cursor: string | undefined;
    do {
      const next = await page(list(`?limit=10${cursor ? `&cursor=${cursor}` : ''}`));
      small.push(next.tokens.map((token) => token.id));
      cursor = next.next_cursor;
    } while (cursor !== undefined && small.length < 5);

    // Assert
    expect(first.tokens.map((token) => token.id)).toEqual(newestFirst.slice(0, 20));
    expect(first.total).toBe(25);
    expect(second.tokens.map((token) => token.id)).toEqual(newestFirst.slice(20));
    expect(second).not.toHaveProperty('next_cursor');
    expect(small).toEqual([newestFirst.slice(0, 10), newestFirst.slice(10, 20), newestFirst.slice(20)]);
  });

  test('filters: status, origin (any part of an allowed origin, any case) and purpose, combined; the cursor keeps to them', async () => {
    // Arrange
    const { fixture, list } = await workspace();
    const docs = await fixture.issue({ allowedOrigins: ['https://docs.example.com'] });
    const shortLived = await fixture.issue({ allowedOrigins: ['https://shop.example.com'], ttlMinutes: 1 });
    const revoked = await fixture.issue({ allowedOrigins: ['http://localhost:35173'] });
    await fixture.store.revokeToken(revoked.id, fixture.now());
    const local: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      fixture.advance(MINUTE);
      local.push((await fixture.issue({ allowedOrigins: ['http://localhost:35173', 'https://docs.example.com'] })).id);
    }
    fixture.advance(MINUTE);
    const demo = await fixture.issue({ allowedOrigins: ['http://localhost:35173'], purpose: 'demo' });
    const ids = async (query: string) => (await page(list(query))).tokens.map((token) => token.id);

    // Act
    const expired = await ids('?status=expired');
    const revokedOnes = await ids('?status=revoked');
    const byOrigin = await ids('?origin=LOCALHOST:35173&status=active');
    const docsDemo = await ids('?origin=docs.example&purpose=demo');
    const demos = await ids('?purpose=demo');
    const firstLocal = await page(list('?origin=localhost&purpose=embed&status=active&limit=2'));
    const restLocal = await page(list(`?origin=localhost&purpose=embed&status=active&limit=2&cursor=${firstLocal.next_cursor!}`));

    // Assert
    expect(expired).toEqual([shortLived.id]);
    expect(revokedOnes).toEqual([revoked.id]);
    expect(byOrigin).toEqual([demo.id, ...[...local].reverse()]);
    expect(docsDemo).toEqual([]);
    expect(demos).toEqual([demo.id]);
    expect(firstLocal.total).toBe(3);
    expect([...firstLocal.tokens, ...restLocal.tokens].map((token) => token.id)).toEqual([...local].reverse());
    expect(restLocal).not.toHaveProperty('next_cursor');
    expect(await ids('?origin=docs.example.com&status=active')).toEqual([...[...local].reverse(), docs.id]);
  });

  test.each([
    ['?limit=0', 'limit: must be an integer from 1 to 100, got "0"'],
    ['?limit=101', 'limit: must be an integer from 1 to 100, got "101"'],
    ['?limit=ten', 'limit: must be an integer from 1 to 100, got "ten"'],
    ['?status=gone', 'status: must be one of active, expired, revoked, got "gone"'],
    ['?purpose=any', 'purpose: must be one of embed, preview, demo, got "any"'],
    ['?status=active&status=revoked', 'status: must be one of active, expired, revoked'],
    ['?origin=', 'origin:'],
    ['?cursor=not-a-cursor', 'cursor: "not-a-cursor" is not a next_cursor this API gave'],
    ['?state=active', 'Unrecognized key: "state"'],
  ])('%s: 400 invalid_request naming the parameter', async (query, detail) => {
    badQueryWorkspace ??= workspace(false);
    const { list } = await badQueryWorkspace;

    const response = await list(query);

    expect(response.status).toBe(400);
    const problem = (await response.json()) as Problem;
    expect(problem.code).toBe('invalid_request');
    expect(problem.detail).toContain(detail);
  });

  test('expired preview and demo tokens: deleted at the next listing and no longer found; expired and revoked embed tokens stay listed', async () => {
    // Arrange
    const { fixture, list } = await workspace();
    const preview = await fixture.issue({ purpose: 'preview', ttlMinutes: 10 });
    fixture.advance(1);
    const demo = await fixture.issue({ purpose: 'demo', ttlMinutes: 60 });
    fixture.advance(1);
    const embedExpired = await fixture.issue({ ttlMinutes: 10 });
    fixture.advance(1);
    const embedRevoked = await fixture.issue({ ttlMinutes: 10 });
    await fixture.store.revokeToken(embedRevoked.id, fixture.now());
    const before = (await page(list())).tokens.map((token) => token.id);
    fixture.advance(10 * MINUTE);

    // Act
    const afterPreview = await page(list());
    fixture.advance(50 * MINUTE);
    const afterDemo = await page(list());

    // Assert
    expect(before).toHaveLength(4);
    expect(afterPreview.tokens.map((token) => [token.id, token.status])).toEqual([
      [embedRevoked.id, 'revoked'],
      [embedExpired.id, 'expired'],
      [demo.id, 'active'],
    ]);
    expect(afterDemo.tokens.map((token) => token.id)).toEqual([embedRevoked.id, embedExpired.id]);
    expect(afterDemo.total).toBe(2);
    expect(await fixture.store.findTokenByHash(hashToken(preview.token))).toBeUndefined();
  });

  test('a new preview token: the expired preview tokens of the knowledge base deleted, the valid one kept', async () => {
    // Arrange
    const { fixture, cookie } = await workspace();
    const old = await fixture.issue({ purpose: 'preview', ttlMinutes: 10, allowedOrigins: [fixture.baseUrl] });
    fixture.advance(5 * MINUTE);
    const recent = await fixture.issue({ purpose: 'preview', ttlMinutes: 10, allowedOrigins: [fixture.baseUrl] });
    fixture.advance(6 * MINUTE);

    // Act
    const response = await fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/tokens/preview`, {
      method: 'POST',
      headers: { Origin: fixture.baseUrl, Cookie: cookie, 'Content-Type': 'application/json' },
      body: '{}',
    });

    // Assert
    expect(response.status).toBe(201);
    const issued = (await response.json()) as { id: string };
    expect((await fixture.store.listTokens('docs')).map((token) => token.id)).toEqual([recent.id, issued.id]);
    expect(old.id).not.toBe(recent.id);
  });
});

describe('DELETE …/tokens/{tokenId}', () => {
  test("another knowledge base's token: 404, not revoked", async () => {
    const { fixture, cookie } = await workspace();
    const elsewhere = await fixture.issue({ kbId: 'other' });

    const response = await fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/tokens/${elsewhere.id}`, {
      method: 'DELETE',
      headers: { Origin: fixture.baseUrl, Cookie: cookie },
    });

    expect(response.status).toBe(404);
    expect((await fixture.store.findTokenByHash(hashToken(elsewhere.token)))?.revokedAt).toBeUndefined();
  });
});

describe('POST …/tokens snippet', () => {
  test('says when the token expires and sets a tokenProvider fetching a fresh one; the element carries the token', async () => {
    // Arrange
    const { fixture, cookie } = await workspace();

    // Act
    const response = await fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/tokens`, {
      method: 'POST',
      headers: { Origin: fixture.baseUrl, Cookie: cookie, 'Content-Type': 'application/json' },
      body: JSON.stringify({ allowed_origins: ['https://docs.example.com'], ttl_minutes: 45 }),
    });

    // Assert
    expect(response.status).toBe(201);
    const issued = (await response.json()) as IssuedToken;
    expect(issued.snippet).toContain(`This token expires at ${issued.expires_at}, 45 minutes after it was issued.`);
    expect(issued.snippet).toContain(`<script src="${fixture.baseUrl}/widget/kb-widget.js"></script>`);
    expect(issued.snippet).toContain(`<kb-widget base-url="${fixture.baseUrl}" kb-id="docs" token="${issued.token}"></kb-widget>`);
    expect(issued.snippet).toContain("document.querySelector('kb-widget').tokenProvider = async () => {");
    expect(issued.snippet).toContain("await fetch('/kb-widget-token'");
  });
});
