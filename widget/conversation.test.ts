import { describe, expect, test } from 'vitest';
import type { StreamFrame } from '../protocol/query-protocol.ts';
import { applyFrame, failTurn, provenanceOf, refusalReason, startTurn, stopTurn, type Turn } from './conversation.ts';

const citation = { index: 1, doc_id: 'fs.md', kb_id: 'node-docs', source_span: { ref: 'r1' } };

function play(frames: StreamFrame[]): Turn {
  return frames.reduce(applyFrame, startTurn(1, 'How?'));
}

describe('applyFrame', () => {
  test('tokens then citations then done: text concatenated, sources set, answered', () => {
    const turn = play([
      { type: 'token', text: 'Use' },
      { type: 'token', text: ' `mkdir` [1].' },
      { type: 'citations', citations: [citation] },
      { type: 'done', abstained: false },
    ]);

    expect(turn).toMatchObject({ status: 'answered', text: 'Use `mkdir` [1].', citations: [citation] });
  });

  test('done with provenance qa_shortcut: kept on the turn and sent back as is; without one, generated or abstained by the outcome', () => {
    const curated = play([{ type: 'done', abstained: false, provenance: 'qa_shortcut' }]);
    const answered = play([{ type: 'done', abstained: false }]);
    const abstained = play([{ type: 'abstain', answer: 'No.' }, { type: 'done', abstained: true }]);

    expect([curated, answered, abstained].map(provenanceOf)).toEqual(['qa_shortcut', 'generated', 'abstained']);
  });

  test('reset mid-answer: what was shown is discarded and later tokens start afresh', () => {
    const turn = play([
      { type: 'token', text: 'Wrong [1]' },
      { type: 'citations', citations: [citation] },
      { type: 'reset' },
      { type: 'token', text: 'Right' },
      { type: 'done', abstained: false },
    ]);

    expect(turn).toMatchObject({ status: 'answered', text: 'Right', citations: [] });
  });

  test('abstain after tokens: the partial answer is replaced by the refusal, abstained on done', () => {
    const turn = play([
      { type: 'token', text: 'Partial' },
      { type: 'abstain', answer: 'I could not find that.' },
      { type: 'done', abstained: true },
    ]);

    expect(turn).toMatchObject({ status: 'abstained', text: 'I could not find that.', citations: [] });
  });

  test('error frame mid-answer: what arrived is kept, the turn failed with generation-failed', () => {
    const turn = play([{ type: 'token', text: 'Half an' }, { type: 'error', code: 'timeout', message: 'Too slow' }]);

    expect(turn).toMatchObject({ status: 'failed', text: 'Half an', failure: { reason: 'generation-failed' } });
  });

  test('frames after the terminal frame: ignored', () => {
    const turn = play([{ type: 'done', abstained: false }, { type: 'token', text: 'late' }]);

    expect(turn.text).toBe('');
  });

  test('suggestions: offered', () => {
    expect(play([{ type: 'suggestions', questions: ['What next?'] }]).suggestions).toEqual(['What next?']);
  });
});

describe('ending a turn', () => {
  test('failTurn while streaming: keeps the text, records the reason, the wait and when it ends', () => {
    const turn = failTurn({ ...startTurn(2, 'Q'), text: 'So far' }, 'rate-limited', 7, 1_000_000);

    expect(turn).toMatchObject({ status: 'failed', text: 'So far', failure: { reason: 'rate-limited', retryAfterSeconds: 7, retryAt: 1_007_000 } });
  });

  test('failTurn without Retry-After: no wait recorded', () => {
    expect(failTurn(startTurn(2, 'Q'), 'offline').failure).toEqual({ reason: 'offline' });
  });

  test('stopTurn on a finished turn: unchanged', () => {
    const answered = play([{ type: 'done', abstained: false }]);

    expect(stopTurn(answered)).toBe(answered);
  });
});

test.each([
  ['token_expired', 401, 'expired'],
  ['token_revoked', 401, 'revoked'],
  ['origin_not_allowed', 403, 'not-allowed'],
  ['rate_limited', 429, 'rate-limited'],
  ['unavailable', 503, 'unavailable'],
  ['invalid_token', 401, 'misconfigured'],
  ['missing_token', 401, 'misconfigured'],
  ['kb_mismatch', 403, 'misconfigured'],
  ['invalid_request', 400, 'rejected'],
] as const)('refusalReason(%s, %i): %s', (code, status, reason) => {
  expect(refusalReason(code, status)).toBe(reason);
});
