import { analyze } from './analyzer.ts';
import type { AnswerEvent, EngineCitation } from './answer-events.ts';
import { DEFAULT_ABSTENTION_THRESHOLD } from './evidence.ts';
import { composeExtractiveAnswer } from './extractive-answerer.ts';
import { rankFaqPairs, RELATED_SIMILARITY, SHORTCUT_SIMILARITY, type FaqMatch } from './qa-shortcut.ts';
import { suggestFollowUps } from './suggestions.ts';
import { MAX_QUERY_TERMS } from '../store/bm25.ts';
import type { Reach, ScoredPassage, Store } from '../store/store.ts';

/** Passages retrieved when the request does not say (`top_k` omitted). */
export const DEFAULT_TOP_K = 8;

/** The answer given when the service abstains. */
export const ABSTENTION_MESSAGE =
  "I couldn't find an answer to that in this knowledge base. Try rephrasing the question, or ask about something the documentation covers.";

/** Dependencies and settings of {@link createAnswerEngine}. */
export interface AnswerEngineOptions {
  store: Store;
  /** Evidence score (0..1) below which the engine abstains. */
  abstentionThreshold?: number;
}

/** One question to answer. */
export interface AnswerRequest {
  question: string;
  reach: Reach;
  /** Passages to retrieve, 1..20. */
  topK?: number;
  /** Aborted when the asker has gone: the engine stops at the next step. */
  signal?: AbortSignal;
}

/** Answers questions over the store: `qa_shortcut`, else retrieval and the extractive answerer. */
export interface AnswerEngine {
  /**
   * @returns the answer as events, ending with exactly one `done`
   * @throws StoreUnavailableError (from the store) before or between events
   */
  answer(request: AnswerRequest): AsyncGenerator<AnswerEvent>;
}

/**
 * Analyzes a question into distinct query terms, at most {@link MAX_QUERY_TERMS}.
 */
export function questionTerms(question: string): string[] {
  return [...new Set(analyze(question))].slice(0, MAX_QUERY_TERMS);
}

/** Builds the engine. */
export function createAnswerEngine(options: AnswerEngineOptions): AnswerEngine {
  const { store } = options;
  const threshold = options.abstentionThreshold ?? DEFAULT_ABSTENTION_THRESHOLD;

  async function* answer(request: AnswerRequest): AsyncGenerator<AnswerEvent> {
    const terms = questionTerms(request.question);
    const matches = rankFaqPairs(terms, await store.listFaq(request.reach.kbId));
    const shortcut = await resolveShortcut(store, request.reach, matches);
    if (request.signal?.aborted) return;
    if (shortcut) {
      yield { type: 'citations', citations: shortcut.citations };
      yield* tokens(shortcut.text);
      const questions = suggestFollowUps(request.question, await relatedQuestions(store, request.reach, matches, shortcut.text), [], []);
      if (questions.length > 0) yield { type: 'suggestions', questions };
      yield { type: 'done', abstained: false, provenance: 'qa_shortcut' };
      return;
    }

    const search = await store.search({ reach: request.reach, terms, topK: request.topK ?? DEFAULT_TOP_K });
    if (request.signal?.aborted) return;
    const extractive = composeExtractiveAnswer(terms, search);
    if (!extractive || extractive.evidence < threshold) {
      yield { type: 'abstain', answer: ABSTENTION_MESSAGE };
      yield { type: 'done', abstained: true, provenance: 'abstained' };
      return;
    }
    const citations: EngineCitation[] = extractive.cited.map((passage, position) => ({ index: position + 1, passage }));
    yield { type: 'citations', citations };
    yield* tokens(extractive.text);
    const related = await relatedQuestions(store, request.reach, matches);
    const questions = suggestFollowUps(request.question, related, search.passages, extractive.cited);
    if (questions.length > 0) yield { type: 'suggestions', questions };
    yield { type: 'done', abstained: false, provenance: 'generated' };
  }

  return { answer };
}

/** Splits text into word-sized `token` events whose concatenation is the text. */
function* tokens(text: string): Generator<AnswerEvent> {
  for (const piece of text.match(/\s*\S+/g) ?? []) yield { type: 'token', text: piece };
}

/** Curated questions related to the asked one whose sources all lie inside the reach. */
async function relatedQuestions(
  store: Store,
  reach: Reach,
  matches: readonly FaqMatch[],
  exceptAnswer?: string,
): Promise<string[]> {
  const questions: string[] = [];
  for (const match of matches) {
    if (match.similarity < RELATED_SIMILARITY) break;
    if (match.pair.answer === exceptAnswer) continue;
    if (await resolveSources(store, reach, match)) questions.push(match.pair.question);
  }
  return questions;
}

/** One passage per source of the pair, or undefined when any source lies outside the reach. */
async function resolveSources(store: Store, reach: Reach, match: FaqMatch): Promise<ScoredPassage[] | undefined> {
  const passages: ScoredPassage[] = [];
  for (const source of match.pair.sources) {
    const [passage] = await store.passagesOf(reach, source.docId, source.heading);
    if (!passage) return undefined;
    passages.push(passage);
  }
  return passages;
}

/**
 * The best curated pair close enough to answer, with each source resolved to
 * a passage inside the reach. A pair citing anything outside the reach is
 * never used: a curated answer must not reveal what the asker cannot read.
 */
async function resolveShortcut(
  store: Store,
  reach: Reach,
  matches: readonly FaqMatch[],
): Promise<{ text: string; citations: EngineCitation[] } | undefined> {
  for (const match of matches) {
    if (match.similarity < SHORTCUT_SIMILARITY) return undefined;
    const passages = await resolveSources(store, reach, match);
    if (!passages) continue;
    return {
      text: match.pair.answer,
      citations: passages.map((passage, position) => ({ index: position + 1, passage })),
    };
  }
  return undefined;
}
