import { describe, expect, test } from 'vitest';
import { DEFAULT_TOP_K, FUSION_DEPTH, PASSAGE_POOL, RERANK_DEPTH } from './retrieval-plan.ts';
import { DOCUMENT_SHARE_DEPTH } from '../engine/ranking/passage-rerank.ts';
import { MAX_TOP_K } from '../../protocol/query-terms.ts';

describe('retrieval plan', () => {
  test('each step takes no more candidates than the step before it hands on', () => {
    expect(RERANK_DEPTH).toBeLessThanOrEqual(FUSION_DEPTH);
    expect(FUSION_DEPTH).toBeLessThanOrEqual(PASSAGE_POOL);
  });

  test('every top_k a request may ask is within the re-ranked passages, so the evidence features never depend on it', () => {
    expect(DEFAULT_TOP_K).toBeLessThanOrEqual(MAX_TOP_K);
    expect(MAX_TOP_K).toBeLessThanOrEqual(RERANK_DEPTH);
    expect(DOCUMENT_SHARE_DEPTH).toBeLessThanOrEqual(RERANK_DEPTH);
  });
});
