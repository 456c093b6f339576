import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Citation, Problem, QueryResponse, SourceSpan } from '../../protocol/query-protocol.ts';
import type { FeedbackRecord, Reach } from '../store/store.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * `POST /widget/feedback` over real HTTP on the test run's backend: what is
 * stored from a rating or a problem report, and which spans are refused.
 * (The refusals it shares with the query endpoints, token, origin, size,
 * media type and rate limits, are in refusals.test.ts.)
 */

let fixture: WidgetFixture;
let token: string;
const QUESTION = 'How do I create a directory with its parents?';

beforeAll(async () => {
  fixture = await createWidgetFixture();
  ({ token } = await fixture.issue());
});
afterAll(async () => {
  await fixture.close();
});

/** Asks on the JSON endpoint and returns the answer's citations. */
async function citationsFor(question: string, options: { token: string; kbId?: string }): Promise<Citation[]> {
  const response = await fixture.post('query', { question }, options);
  expect(response.status).toBe(200);
  const answer = (await response.json()) as QueryResponse;
  expect(answer.citations.length).toBeGreaterThan(0);
  return answer.citations;
}

/** Everything stored for `docs`, newest first, as its owner sees it. */
function stored(): Promise<FeedbackRecord[]> {
  const reach: Reach = { kbId: 'docs', userId: fixture.users.owner.id, visibilities: ['public', 'workspace', 'restricted'] };
  return fixture.store.listFeedback(reach, { limit: 100 });
}

function rating(spans: unknown[], fields: Record<string, unknown> = {}) {
  return { kind: 'rating', question: QUESTION, provenance: 'generated', rating: 'down', reason: 'incorrect', source_spans: spans, ...fields };
}

function report(span: unknown, fields: Record<string, unknown> = {}) {
  return { kind: 'problem', question: QUESTION, provenance: 'generated', source_span: span, reason: 'out_of_date', ...fields };
}

/** Asserts a 400 `invalid_request` problem; returns its detail. */
async function expectInvalid(response: Response): Promise<string> {
  expect(response.status).toBe(400);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Problem;
  expect(body.code).toBe('invalid_request');
  return body.detail;
}

/** The span with one character of its `ref` changed. */
function tampered(span: SourceSpan): SourceSpan {
  const at = Math.floor(span.ref.length / 2);
  return { ref: `${span.ref.slice(0, at)}${span.ref[at] === 'A' ? 'B' : 'A'}${span.ref.slice(at + 1)}` };
}

describe('POST /widget/feedback accepted', () => {
  test('a 👎 with a reason, a comment and the answer\'s spans: 204, stored with the passages they locate and nothing about the visitor', async () => {
    const citations = await citationsFor(QUESTION, { token });
    const before = (await stored()).length;

    const response = await fixture.post(
      'feedback',
      rating(
        citations.map((citation) => citation.source_span),
        { comment: '  The option is called recursive, not parents.  ' },
      ),
      { token, headers: { Origin: 'http://localhost:5173', 'User-Agent': 'visitor-agent/1.0' } },
    );

    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const [record, ...older] = await stored();
    expect(older).toHaveLength(before);
    expect(record).toEqual({
      id: expect.any(Number),
      kbId: 'docs',
      kind: 'rating',
      createdAt: fixture.now(),
      question: QUESTION,
      provenance: 'generated',
      rating: 'down',
      reason: 'incorrect',
      comment: 'The option is called recursive, not parents.',
      passages: citations.map((citation) => ({
        docId: citation.doc_id,
        chunkId: expect.any(Number),
        version: expect.stringMatching(/^[0-9a-f]{16}$/),
        title: 'Guide',
      })),
    });
    expect(JSON.stringify(record)).not.toMatch(/127\.0\.0\.1|visitor-agent|kbw_|localhost/);
  });

  test('a 👍 of an abstention, without spans: 204, stored without reason or comment', async () => {
    const response = await fixture.post('feedback', rating([], { rating: 'up', reason: undefined, provenance: 'abstained', comment: '   ' }), { token });

    expect(response.status).toBe(204);
    const [record] = await stored();
    expect(record).toMatchObject({ kind: 'rating', rating: 'up', provenance: 'abstained', passages: [] });
    expect(record).not.toHaveProperty('reason');
    expect(record).not.toHaveProperty('comment');
  });

  test('a problem report on one genuine span: 204, stored with that one passage', async () => {
    const [citation] = await citationsFor(QUESTION, { token });

    const response = await fixture.post('feedback', report(citation!.source_span, { reason: 'broken_link' }), { token });

    expect(response.status).toBe(204);
    const [record] = await stored();
    expect(record).toMatchObject({ kind: 'problem', reason: 'broken_link', passages: [{ docId: citation!.doc_id, title: 'Guide' }] });
    expect(record!.passages).toHaveLength(1);
    expect(record).not.toHaveProperty('rating');
  });

  test('a span of a workspace document, sent with the token that was given it: 204', async () => {
    const workspace = await fixture.issue({ scope: ['public', 'workspace'] });
    const citations = await citationsFor('When does the zebra rollout deploy to staging?', { token: workspace.token });
    const internal = citations.find((citation) => citation.doc_id === 'internal.md')!;

    const response = await fixture.post('feedback', report(internal.source_span), { token: workspace.token });

    expect(response.status).toBe(204);
  });
});

describe('POST /widget/feedback refused spans: 400 invalid_request naming the span, nothing stored', () => {
  test('a genuine span and a tampered one: refused naming source_spans[1]', async () => {
    const [citation] = await citationsFor(QUESTION, { token });
    const before = await stored();

    const detail = await expectInvalid(await fixture.post('feedback', rating([citation!.source_span, tampered(citation!.source_span)]), { token }));

    expect(detail).toBe('"source_spans[1]" is not a source span this service issued, or it was altered');
    expect(await stored()).toEqual(before);
  });

  test.each([
    ['a tampered ref', (span: SourceSpan): unknown => tampered(span)],
    ['a forged ref', (): unknown => ({ ref: 'bm90LWEtcmVhbC1zcGFuLWF0LWFsbC1qdXN0LWZvcmdlZA' })],
    ['no ref', (): unknown => ({ doc_id: 'guide.md' })],
    ['a ref in another spelling of the same bytes', (span: SourceSpan): unknown => ({ ref: `${span.ref}=` })],
  ])('a problem report with %s: refused naming source_span', async (_case, change) => {
    const [citation] = await citationsFor(QUESTION, { token });
    const before = await stored();

    const detail = await expectInvalid(await fixture.post('feedback', report(change(citation!.source_span)), { token }));

    expect(detail).toMatch(/^Field "source_span" is not a source span this service issued/);
    expect(await stored()).toEqual(before);
  });

  test('a genuine span of another knowledge base: refused', async () => {
    const other = await fixture.issue({ kbId: 'other' });
    const [penguins] = await citationsFor('Where do penguins live?', { token: other.token, kbId: 'other' });
    const before = await stored();

    const detail = await expectInvalid(await fixture.post('feedback', report(penguins!.source_span), { token }));

    expect(detail).toBe('Field "source_span" cites a passage of another knowledge base');
    expect(await stored()).toEqual(before);
  });

  test.each([
    ['restricted', 'What happens at the quokka launch?', 'secret.md', ['public', 'workspace', 'restricted']],
    ['workspace', 'When does the zebra rollout deploy to staging?', 'internal.md', ['public', 'workspace']],
  ] as const)('a genuine span of a %s document, sent with a public-scope token: refused', async (_visibility, question, docId, scope) => {
    const wide = await fixture.issue({ issuerId: fixture.users.alice.id, scope: [...scope] });
    const citation = (await citationsFor(question, { token: wide.token })).find((candidate) => candidate.doc_id === docId)!;
    const before = await stored();

    const detail = await expectInvalid(await fixture.post('feedback', rating([citation.source_span]), { token }));

    expect(detail).toBe('"source_spans[0]" cites a document this token cannot reach now');
    expect(await stored()).toEqual(before);
  });

  test('a span of a document made restricted since the answer: refused', async () => {
    const [citation] = await citationsFor('How do I read a whole file into a string?', { token });
    const document = (await fixture.store.getDocument('docs', citation!.doc_id))!;
    await fixture.store.setDocumentAccess('docs', document.docId, { visibility: 'restricted', readers: [], quotable: true });
    try {
      const detail = await expectInvalid(await fixture.post('feedback', report(citation!.source_span), { token }));

      expect(detail).toBe('Field "source_span" cites a document this token cannot reach now');
    } finally {
      await fixture.store.setDocumentAccess('docs', document.docId, { visibility: document.visibility, readers: document.readers, quotable: document.quotable });
    }
  });
});

describe('POST /widget/feedback refused bodies: 400 invalid_request saying which field', () => {
  test.each([
    ['no kind', { question: QUESTION }, 'Field "kind" must be "rating" or "problem"'],
    ['an unknown kind', { ...rating([]), kind: 'vote' }, 'Field "kind" must be "rating" or "problem", got "vote"'],
    ['no rating', { ...rating([]), rating: undefined }, 'Field "rating" is required'],
    ['a rating of 5', rating([], { rating: 5 }), 'Field "rating" must be "up" or "down", got 5'],
    ['a reason with 👍', rating([], { rating: 'up' }), 'Field "reason" is only for rating "down", got "incorrect"'],
    ['a problem reason on a rating', rating([], { reason: 'broken_link' }), 'Field "reason" must be "incorrect", "not_what_i_asked", "out_of_date" or "other", got "broken_link"'],
    ['no reason on a report', report({ ref: 'x' }, { reason: undefined }), 'Field "reason" is required'],
    ['an unknown provenance', rating([], { provenance: 'guessed' }), 'Field "provenance" must be "generated", "abstained" or "qa_shortcut", got "guessed"'],
    ['a blank question', rating([], { question: '  ' }), 'Field "question" must not be empty'],
    ['a question of 2001 characters', rating([], { question: 'a'.repeat(2001) }), 'Field "question" must be at most 2000 characters'],
    ['a comment of 1001 characters', rating([], { comment: 'a'.repeat(1001) }), 'Field "comment" must be at most 1000 characters'],
    ['21 spans', rating(Array.from({ length: 21 }, () => ({ ref: 'x' }))), 'Field "source_spans" must hold at most 20 source spans'],
    ['spans as an object', rating({ ref: 'x' } as unknown as unknown[]), 'Field "source_spans" must be an array'],
    ['a span that is a string', rating(['x']), 'Each of "source_spans" must be a source_span object'],
    ['no span on a report', report(undefined), 'Field "source_span" is required'],
  ])('%s', async (_case, body, expected) => {
    const before = await stored();

    const detail = await expectInvalid(await fixture.post('feedback', body, { token }));

    expect(detail.startsWith(expected)).toBe(true);
    expect(await stored()).toEqual(before);
  });

  test('a comment of exactly 1,000 characters after trimming: accepted', async () => {
    const response = await fixture.post('feedback', rating([], { comment: `  ${'a'.repeat(1000)}  ` }), { token });

    expect(response.status).toBe(204);
  });
});
