import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem, QueryResponse } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import type { ConsoleFeedback } from './feedback-page.ts';

/**
 * `GET /console/api/knowledge-bases/{kbId}/feedback` over real HTTP, fed
 * through the real feedback endpoint: who may read it, its order and pages,
 * and how passages are named. Roles in the fixture's `docs`: owner, alice
 * and bob editors, reader a reader; `secret.md` (restricted) lists alice,
 * not bob.
 */
const PASSWORD = 'correct horse battery staple';
let fixture: WidgetFixture;
const cookies: Record<'owner' | 'alice' | 'bob' | 'reader', string> = { owner: '', alice: '', bob: '', reader: '' };
/** A token of alice's that reaches every document (restricted ones she reads included). */
let token: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: PASSWORD, alice: PASSWORD, bob: PASSWORD, reader: PASSWORD } });
  for (const name of ['owner', 'alice', 'bob', 'reader'] as const) cookies[name] = await fixture.signIn(`${name}@example.com`, PASSWORD);
  ({ token } = await fixture.issue({ issuerId: fixture.users.alice.id, scope: ['public', 'workspace', 'restricted'] }));
});
afterAll(async () => {
  await fixture.close();
});

function list(cookie: string, query = '', kbId = 'docs'): Promise<Response> {
  return fetch(`${fixture.baseUrl}/console/api/knowledge-bases/${kbId}/feedback${query}`, { headers: { Cookie: cookie, Origin: fixture.baseUrl } });
}

async function page(cookie: string, query = ''): Promise<{ feedback: ConsoleFeedback[]; next_cursor?: string }> {
  const response = await list(cookie, query);
  expect(response.status).toBe(200);
  return (await response.json()) as { feedback: ConsoleFeedback[]; next_cursor?: string };
}

/** Asks, then rates the answer down with its spans; returns the answer's cited document ids. */
async function rateDown(question: string, fields: Record<string, unknown> = {}): Promise<string[]> {
  const answer = (await (await fixture.post('query', { question }, { token })).json()) as QueryResponse;
  const body = { kind: 'rating', question, provenance: answer.provenance, rating: 'down', source_spans: answer.citations.map((citation) => citation.source_span), ...fields };
  expect((await fixture.post('feedback', body, { token })).status).toBe(204);
  return answer.citations.map((citation) => citation.doc_id);
}

describe('GET /console/api/knowledge-bases/{kbId}/feedback', () => {
  test('an editor after a 👎 with a reason and comment: the record as JSON, passages by document id and title, no spans', async () => {
    const docIds = await rateDown('How do I create a directory with its parents?', { reason: 'not_what_i_asked', comment: 'I meant folders on Windows.' });

    const { feedback } = await page(cookies.bob);

    expect(feedback[0]).toEqual({
      id: expect.any(Number),
      kind: 'rating',
      created_at: new Date(fixture.now()).toISOString(),
      question: 'How do I create a directory with its parents?',
      provenance: 'generated',
      rating: 'down',
      reason: 'not_what_i_asked',
      comment: 'I meant folders on Windows.',
      passages: docIds.map((docId) => ({ doc_id: docId, title: 'Guide' })),
      unlisted_passages: 0,
    });
    expect(JSON.stringify(feedback)).not.toContain('source_span');
  });

  test('a reader: 403 forbidden; a person who is not a member: 404; signed out: 401', async () => {
    const reader = await list(cookies.reader);
    const stranger = await list(cookies.alice, '', 'other');
    const signedOut = await fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/feedback`);

    expect([reader.status, ((await reader.json()) as Problem).code]).toEqual([403, 'forbidden']);
    expect(stranger.status).toBe(404);
    expect(signedOut.status).toBe(401);
  });

  test('three records at three times: newest first; pages of two continue by next_cursor without repeats, the last has none', async () => {
    for (const [minute, question] of ['How do I read a file?', 'What is backpressure?', 'How do I stream a large file?'].entries()) {
      fixture.advance(60_000);
      await rateDown(question, { comment: `minute ${minute}` });
    }

    const first = await page(cookies.owner, '?limit=2');
    const second = await page(cookies.owner, `?limit=2&cursor=${first.next_cursor}`);

    expect(first.feedback.map((record) => record.question)).toEqual(['How do I stream a large file?', 'What is backpressure?']);
    expect(second.feedback[0]!.question).toBe('How do I read a file?');
    const all = (await page(cookies.owner, `?limit=100`)).feedback;
    expect(all.map((record) => record.id)).toEqual([...all.map((record) => record.id)].sort((left, right) => right - left));
    const last = await page(cookies.owner, `?limit=${all.length}`);
    expect(last).not.toHaveProperty('next_cursor');
  });

  test('a restricted document alice reads: named for alice, left unnamed (counted) for bob, who is not its reader', async () => {
    await rateDown('What happens at the quokka launch?');

    const forAlice = (await page(cookies.alice)).feedback[0]!;
    const forBob = (await page(cookies.bob)).feedback[0]!;

    expect(forAlice.passages).toContainEqual({ doc_id: 'secret.md', title: 'Launch plan' });
    expect(forBob.passages.map((passage) => passage.doc_id)).not.toContain('secret.md');
    expect(forBob.unlisted_passages).toBe(forAlice.passages.length - forBob.passages.length);
    expect(forBob.unlisted_passages).toBeGreaterThan(0);
    expect(JSON.stringify(forBob)).not.toMatch(/secret|Launch plan/);
  });

  test.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=ten', 'limit'],
    ['?cursor=not-a-cursor', 'cursor'],
  ])('%s: 400 invalid_request naming %s', async (query, field) => {
    const response = await list(cookies.owner, query);

    expect(response.status).toBe(400);
    const body = (await response.json()) as Problem;
    expect(body.code).toBe('invalid_request');
    expect(body.detail.startsWith(`${field}:`)).toBe(true);
  });
});
