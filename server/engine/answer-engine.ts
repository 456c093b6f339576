import { analyze } from '../retrieval/analyzer.ts';
import type { AnswerEvent, EngineCitation } from './answer-events.ts';
import { buildAnswerPrompt } from './generation/answer-prompt.ts';
import type { ChatClient } from './generation/chat-completions-client.ts';
import { DEFAULT_ABSTENTION_THRESHOLD } from './ranking/evidence.ts';
import { ownerHeadingPath, sectionSnippet } from './extractive/answer-composition.ts';
import { planExtractiveAnswer, writeExtractiveAnswer } from './extractive/extractive-answerer.ts';
import { checkGrounding, type GroundingRejection } from './generation/grounding-check.ts';
import { retrievePassages } from './ranking/passage-rerank.ts';
import { asksHow } from './extractive/question-intent.ts';
import { sameHeadingPath } from './passages/section-heading.ts';
import { StreamedReply } from './generation/streamed-reply.ts';
import { rankFaqPairs, RELATED_SIMILARITY, SHORTCUT_SIMILARITY, type FaqMatch } from './qa-shortcut.ts';
import { suggestFollowUps } from './suggestions.ts';
import { abstention, nearPages, type RelatedSection } from './abstention.ts';
import { MAX_QUERY_TERMS } from '../retrieval/bm25f.ts';
import { DEFAULT_TOP_K } from '../retrieval/retrieval-plan.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import type { FaqPair, Reach, ScoredPassage, Store } from '../store/store.ts';

/** The default `top_k`, from the retrieval plan; re-exported for eval/calibrate-evidence.ts, which imports it from here. */

/** What the engine reads of the store: curated pairs and passages by document. Retrieval goes through the retriever. */
export type EngineStore = Pick<Store, 'passagesOf' | 'countPassages'> & { listFaq(kbId: string): Promise<readonly FaqPair[]> };

/** Where answers come from: the store's curated pairs and documents, and the retriever's passages. */
export interface AnswerSources {
  store: EngineStore;
  retriever: Retriever;
}

/** Dependencies and settings of {@link createAnswerEngine}. */
export interface AnswerEngineOptions extends AnswerSources {
  /** Evidence score (0..1) below which the engine abstains. */
  abstentionThreshold?: number;
  /**
   * The chat model that writes retrieved answers (checked for grounding);
   * without it, retrieved answers are extractive.
   */
  chat?: ChatClient;
  /** Told why a generated answer was withheld (for the operator's log). */
  onRejectedAnswer?: (rejection: { reason: WithheldReason; detail: string }) => void;
}

/** Why a generated answer was withheld: it failed the grounding check, or it ran past {@link MAX_REPLY_CHARACTERS}. */
export type WithheldReason = GroundingRejection | 'too_long';

/**
 * Longest reply accepted from the chat model, in characters: 8,000, about
 * twice what `max_tokens` (chat-completions-client.ts) lets a well-behaved
 * model write. A longer reply is withdrawn (`abstain`) and its request aborted.
 */
export const MAX_REPLY_CHARACTERS = 8_000;

/** One question to answer. */
export interface AnswerRequest {
  question: string;
  reach: Reach;
  /** Passages to retrieve, 1..20. */
  topK?: number;
  /** Aborted when the asker has gone: the engine stops at the next step. */
  signal?: AbortSignal;
  /**
   * Deliver a prepared (extractive or curated) answer's text as one `token`
   * event, for a caller that shows nothing until the end (the JSON
   * endpoint); by default it comes word by word, as a stream shows it.
   */
  wholeText?: boolean;
}

/**
 * What preparing an answer reads of a cancellation: only whether it happened,
 * checked between steps. An AbortSignal is one; an answer worker passes a
 * flag in memory shared with the main thread (engine/answer-worker.ts).
 */
export interface CancellationFlag {
  readonly aborted: boolean;
}

/** A question to prepare (phase one): an {@link AnswerRequest} whose cancellation may be any flag. */
export type PrepareRequest = Omit<AnswerRequest, 'signal'> & { signal?: CancellationFlag };

/**
 * Answers questions over the store: `qa_shortcut`, else retrieval and an
 * answerer (extractive, or the chat model when one is configured).
 */
export interface AnswerEngine {
  /**
   * @returns the answer as events, ending with exactly one `done`; nothing
   *   more (in particular no `done`) once the request's signal has aborted
   * @throws StoreUnavailableError (from the store) before or between events
   * @throws GenerationError (from the chat model) before or between events
   */
  answer(request: AnswerRequest): AsyncGenerator<AnswerEvent>;
}

/**
 * The first phase of an answer: everything that needs the store and the CPU
 * (curated match, BM25 retrieval, sentence selection), as plain data that
 * crosses a worker-thread boundary (structured clone). The second phase,
 * {@link deliverAnswer}, turns it into events.
 *
 * - `qa_shortcut` and `abstained`: the answer's events, final, its text as
 *   one `token` event (a few objects to copy between threads, not one per word).
 * - `retrieved`: the extractive answer's events, alike, plus what the chat model
 *   needs instead: the retrieved passages (best first; a worker leaves them
 *   out when no chat model is configured), the curated questions
 *   related to the question (for follow-up suggestions) and the evidence
 *   score that let the question be answered.
 */
export type PreparedAnswer =
  | { kind: 'qa_shortcut' | 'abstained'; events: AnswerEvent[] }
  | { kind: 'retrieved'; events: AnswerEvent[]; passages: ScoredPassage[]; related: string[]; evidence: number };

/**
 * Analyzes a question into distinct query terms, at most {@link MAX_QUERY_TERMS}.
 */
export function questionTerms(question: string): string[] {
  return [...new Set(analyze(question))].slice(0, MAX_QUERY_TERMS);
}

/** Builds the engine; it prepares and delivers each answer on the calling thread. */
export function createAnswerEngine(options: AnswerEngineOptions): AnswerEngine {
  const threshold = options.abstentionThreshold ?? DEFAULT_ABSTENTION_THRESHOLD;
  return {
    async *answer(request) {
      const prepared = await prepareAnswer(options, request, threshold);
      if (!prepared) return;
      yield* deliverAnswer(prepared, request, options);
    },
  };
}

/**
 * Phase one (see {@link PreparedAnswer}): a curated answer whose sources all
 * lie inside the reach, else retrieval (BM25, then the second stage's
 * re-ranking: engine/ranking/passage-rerank.ts) and the extractive answer, or an
 * abstention when its evidence is below the threshold. An answer led by an
 * API's or a task's heading, or one to a how-question, reads its section's
 * passages from the store (its description and first code example may lie in
 * passages not retrieved), and, for a how-question about a property, those
 * of the class that owns it (engine/extractive/answer-composition.ts). Only a `retrieved`
 * answer is ever handed to the chat model: a question the knowledge base
 * holds too little evidence for is abstained on without asking the model.
 *
 * @returns undefined when the request's signal aborted on the way
 * @throws StoreUnavailableError from the store or the retriever
 */
export async function prepareAnswer(
  sources: AnswerSources,
  request: PrepareRequest,
  abstentionThreshold: number = DEFAULT_ABSTENTION_THRESHOLD,
): Promise<PreparedAnswer | undefined> {
  if (request.signal?.aborted) return undefined;
  const { store } = sources;
  const terms = questionTerms(request.question);
  const matches = rankFaqPairs(terms, await store.listFaq(request.reach.kbId));
  const shortcut = await resolveShortcut(store, request.reach, matches);
  if (request.signal?.aborted) return undefined;
  if (shortcut) {
    const events: AnswerEvent[] = [{ type: 'citations', citations: shortcut.citations }, { type: 'token', text: shortcut.text }];
    const questions = suggestFollowUps(request.question, await relatedQuestions(store, request.reach, matches, shortcut.text), [], []);
    if (questions.length > 0) events.push({ type: 'suggestions', questions });
    events.push({ type: 'done', abstained: false, provenance: 'qa_shortcut' });
    return { kind: 'qa_shortcut', events };
  }

  const search = await retrievePassages(sources, request.reach, terms, request.topK ?? DEFAULT_TOP_K, request.question);
  if (request.signal?.aborted) return undefined;
  const plan = planExtractiveAnswer(search.terms, search);
  if (!plan || plan.evidence < abstentionThreshold) {
    const near = nearPages(search.passages);
    if (near.length === 0) return { kind: 'abstained', events: abstention() };
    const related = await relatedSections(store, request.reach, near, search.passages);
    const questions = suggestFollowUps(request.question, await relatedQuestions(store, request.reach, matches), search.passages, []);
    return { kind: 'abstained', events: abstention(related, questions) };
  }
  const howQuestion = asksHow(request.question);
  const section = plan.leads || howQuestion ? await sectionOf(store, request.reach, plan.anchor, plan.anchor.headingPath, search.passages) : [];
  const owner = plan.leads && howQuestion ? ownerHeadingPath(plan.anchor) : undefined;
  const ownerSection = owner ? await sectionOf(store, request.reach, plan.anchor, owner, search.passages) : [];
  if (request.signal?.aborted) return undefined;
  const extractive = writeExtractiveAnswer(plan, { question: request.question, section, ownerSection });
  const citations: EngineCitation[] = extractive.cited.map((passage, position) => ({ index: position + 1, passage }));
  const related = await relatedQuestions(store, request.reach, matches);
  const events: AnswerEvent[] = [{ type: 'citations', citations }, { type: 'token', text: extractive.text }];
  const questions = suggestFollowUps(request.question, related, search.passages, extractive.cited);
  if (questions.length > 0) events.push({ type: 'suggestions', questions });
  events.push({ type: 'done', abstained: false, provenance: 'generated' });
  return { kind: 'retrieved', events, passages: search.passages, related, evidence: extractive.evidence };
}

/**
 * Phase two, on the thread that writes the response: yields the prepared
 * events (the text word by word, unless the request asks for it whole),
 * or, for a `retrieved` answer when a chat model is configured, the
 * model's answer (see {@link generateAnswer}). Stops without `done` once the
 * request's signal has aborted.
 *
 * @throws GenerationError when the chat model fails
 */
export async function* deliverAnswer(
  prepared: PreparedAnswer,
  request: AnswerRequest,
  options: Pick<AnswerEngineOptions, 'chat' | 'onRejectedAnswer'> = {},
): AsyncGenerator<AnswerEvent> {
  if (prepared.kind === 'retrieved' && options.chat) {
    yield* generateAnswer(prepared, request, options.chat, options.onRejectedAnswer);
    return;
  }
  for (const event of prepared.events) {
    if (event.type === 'token') {
      for (const token of tokens(event.text, request.wholeText)) {
        if (request.signal?.aborted) return;
        yield token;
      }
      continue;
    }
    if (request.signal?.aborted) return;
    yield event;
  }
}

/**
 * The chat model's answer to a retrieved question, streamed as it arrives and
 * checked for grounding (engine/generation/grounding-check.ts) once complete. Events:
 *
 * 1. `token`s with the model's text as it arrives, with the model's own
 *    markers. Leading and trailing whitespace is held back, and so is a reply
 *    that could still become NO_ANSWER, so a refusal is never shown
 *    (engine/generation/streamed-reply.ts, linear in the reply).
 * 2. When the check accepts the answer: if renumbering the citations changed
 *    a marker, `reset` and the corrected text as `token`s; then `citations`
 *    (only now, so no source is revealed for text that may be withdrawn),
 *    `suggestions`, and `done` (provenance `generated`).
 * 3. When the check rejects it (the model said NO_ANSWER, cited nothing, cited
 *    a passage it was not given, or wrote a sentence its passages do not
 *    support), or the reply runs past {@link MAX_REPLY_CHARACTERS} (then the
 *    request to the model is aborted at once): `abstain` with
 *    {@link ABSTENTION_MESSAGE}, which withdraws any streamed text, and
 *    `done` (abstained).
 *
 * A model failure part-way is thrown as the client's GenerationError after
 * the tokens that arrived (the stream's `error` frame keeps them). The
 * asker going away aborts the request to the model and ends the events
 * without `done`.
 */
async function* generateAnswer(
  prepared: Extract<PreparedAnswer, { kind: 'retrieved' }>,
  request: AnswerRequest,
  chat: ChatClient,
  onRejectedAnswer: AnswerEngineOptions['onRejectedAnswer'],
): AsyncGenerator<AnswerEvent> {
  const { signal } = request;
  if (signal?.aborted) return;
  const reply = new StreamedReply();
  const shownParts: string[] = [];
  try {
    for await (const delta of chat.complete(buildAnswerPrompt(request.question, prepared.passages), signal)) {
      if (reply.length + delta.length > MAX_REPLY_CHARACTERS) {
        // Leaving the loop stops reading and aborts the request to the model.
        onRejectedAnswer?.({ reason: 'too_long', detail: `The model's reply passed ${MAX_REPLY_CHARACTERS} characters` });
        yield* abstention();
        return;
      }
      const showable = reply.push(delta);
      if (showable !== '') {
        shownParts.push(showable);
        yield { type: 'token', text: showable };
      }
    }
  } catch (error) {
    if (signal?.aborted) return;
    throw error;
  }
  if (signal?.aborted) return;

  const shown = shownParts.join('');
  const verdict = checkGrounding(reply.text(), prepared.passages);
  if (!verdict.accepted) {
    onRejectedAnswer?.({ reason: verdict.reason, detail: verdict.detail });
    yield* abstention();
    return;
  }
  if (verdict.text !== shown) {
    if (verdict.text.startsWith(shown)) {
      yield* tokens(verdict.text.slice(shown.length));
    } else {
      yield { type: 'reset' };
      yield* tokens(verdict.text);
    }
  }
  yield { type: 'citations', citations: verdict.cited.map((passage, position) => ({ index: position + 1, passage })) };
  const questions = suggestFollowUps(request.question, prepared.related, prepared.passages, verdict.cited);
  if (questions.length > 0) yield { type: 'suggestions', questions };
  yield { type: 'done', abstained: false, provenance: 'generated' };
}

/**
 * Splits text into word-sized `token` events whose concatenation is the text
 * without trailing whitespace, or, when `whole`, that text as one event
 * (none for blank text), so the JSON and the streamed answer read the same.
 */
function tokens(text: string, whole = false): AnswerEvent[] {
  if (!whole) return (text.match(/\s*\S+/g) ?? []).map((piece) => ({ type: 'token', text: piece }));
  const trimmed = text.trimEnd();
  return trimmed === '' ? [] : [{ type: 'token', text: trimmed }];
}

/**
 * The passages of a section of the anchor's document (same heading path)
 * inside the reach, in document order; those retrieved are the retrieved
 * objects (with their BM25 scores).
 */
async function sectionOf(
  store: EngineStore,
  reach: Reach,
  anchor: ScoredPassage,
  headingPath: readonly string[],
  retrieved: readonly ScoredPassage[],
): Promise<ScoredPassage[]> {
  const heading = headingPath.at(-1);
  if (heading === undefined) return [];
  const passages = await store.passagesOf(reach, anchor.docId, heading);
  return passages
    .filter((passage) => sameHeadingPath(passage.headingPath, headingPath))
    .map((passage) => retrieved.find((known) => known.chunkId === passage.chunkId) ?? passage);
}

/**
 * The sections an abstention names, each with its snippet read from the
 * whole section (the sentence that describes it may lie in a passage not
 * retrieved: the nearest passage is often a later one); a document that is
 * not quotable keeps its text out of quotes (docs/cli.md), so its section
 * is named without one.
 */
async function relatedSections(store: EngineStore, reach: Reach, near: readonly ScoredPassage[], retrieved: readonly ScoredPassage[]): Promise<RelatedSection[]> {
  const related: RelatedSection[] = [];
  for (const passage of near) {
    if (!passage.quotable) {
      related.push({ passage });
      continue;
    }
    const snippet = sectionSnippet(await sectionOf(store, reach, passage, passage.headingPath, retrieved), passage);
    related.push(snippet === undefined ? { passage } : { passage, snippet });
  }
  return related;
}

/** Curated questions related to the asked one whose sources all lie inside the reach. */
async function relatedQuestions(
  store: EngineStore,
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
async function resolveSources(store: EngineStore, reach: Reach, match: FaqMatch): Promise<ScoredPassage[] | undefined> {
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
  store: EngineStore,
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
