import type { Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import { QueryRequestSchema } from '../../protocol/query-schemas.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { mountRoutes, type RouteRecord } from '../http/route-record.ts';
import type { ServiceMetrics } from '../http/service-metrics.ts';
import { parseQueryBody } from './query-body.ts';
import { openEventStream, type EventStream } from './sse-writer.ts';
import { streamCap, type OpenStreamCounter } from './stream-limits.ts';
import type { WidgetLocals } from './widget-auth.ts';
import { toWireCitations } from './wire-citations.ts';
import type { ErrorFrame, QueryResponse, StreamFrame } from '../../protocol/query-protocol.ts';
import { collectAnswer, type AnswerEvent } from '../engine/answer-events.ts';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import type { SourceSpanCodec } from './source-span.ts';
import type { QuestionLogWriter } from '../question-log/question-log-writer.ts';
import type { EngineCitation } from '../engine/answer-events.ts';
import { GenerationError, StoreUnavailableError } from '../errors.ts';

/**
 * What the two query endpoints (docs/specification.md "Endpoints"),
 * relative to `/kb-api/api/v1/kb/:kbId/widget`, need. Authentication has
 * run before their handlers (widget-api.ts) and each validates its body
 * before answering, so a refusal is always an ordinary HTTP response; once
 * a stream is open, failures become one `error` frame.
 */
export interface QueryRouteDeps {
  engine: AnswerEngine;
  codec: SourceSpanCodec;
  logger: Logger;
  /** Longest life of one answer stream, ms: then the work is abandoned and the stream ends with `error` `timeout`. */
  maxStreamMilliseconds: number;
  /** The open streams of each token, capped (stream-limits.ts): counted before a stream's handler runs. */
  openStreams: OpenStreamCounter;
  /** Where answers (by provenance) and open streams are counted. */
  metrics?: Pick<ServiceMetrics, 'answers' | 'openStreams'>;
  /** Where each answered question is logged (off the request path); absent when the log is off. */
  questionLog?: QuestionLogWriter;
  /** Clock in epoch milliseconds (the log entry's time). */
  now: () => number;
}

/** Answers a question as one JSON body (`QueryResponse`), or nothing when the client has gone. */
async function answerAsJson(request: Request, response: Response, deps: QueryRouteDeps): Promise<void> {
  const started = performance.now();
  const query = parseQueryBody(request.body);
  const { grant } = response.locals as WidgetLocals;
  // A client that left while its request was checked: its 'close' has already fired.
  if (response.destroyed) return;
  const abort = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) abort.abort();
  });
  const events = deps.engine.answer({ question: query.question, reach: grant.reach, topK: query.topK, signal: abort.signal, wholeText: true });
  const collected = await collectAnswer(events).catch((error: unknown) => {
    if (abort.signal.aborted) return undefined; // the client has gone: nothing to answer
    throw error;
  });
  if (!collected) return;
  const body: QueryResponse = {
    answer: collected.answer,
    citations: toWireCitations(collected.citations, deps.codec, false),
    provenance: collected.provenance,
    abstained: collected.abstained,
  };
  response.json(body);
  deps.metrics?.answers.inc({ provenance: body.provenance });
  logQuestion(deps, grant.reach.kbId, query.question, body.provenance, collected.citations, started, 'json');
}

/**
 * Validates the question and opens its event stream here, so a refusal is
 * still an HTTP response; the answer then runs detached: Express would
 * otherwise keep this request's whole middleware chain alive (its `next`
 * closures) until the answer ends, several kilobytes per open stream.
 * Every failure after the stream opened ends it with an `error` frame, so
 * nothing is lost.
 */
function answerAsEventStream(request: Request, response: Response, deps: QueryRouteDeps): void {
  const query = parseQueryBody(request.body);
  const { grant } = response.locals as WidgetLocals;
  void answerAsStream(deps, query, grant, openEventStream(response), response);
}

/** The refusals the query endpoints share with the feedback endpoint: the token and origin checks, the body's size and type. */
export const WIDGET_REFUSALS = {
  '401': problemResponse('`missing_token`, `invalid_token`, `token_expired`, `token_revoked`'),
  '403': problemResponse('`origin_not_allowed`, `kb_mismatch`'),
  '413': problemResponse('`payload_too_large`'),
  '415': problemResponse('`unsupported_media_type`'),
};

/**
 * The two query endpoints: a question answered as JSON, or streamed as
 * server-sent events. The stream's route counts its token's open streams
 * first (stream-limits.ts `streamCap`).
 */
export const QUERY_ROUTES: readonly RouteRecord<QueryRouteDeps>[] = [
  {
    method: 'post',
    path: '/query',
    body: QueryRequestSchema,
    operation: {
      summary: 'Answer a question (JSON)',
      security: [{ widgetToken: [] }],
      parameters: [kbIdParameter],
      responses: {
        '200': json(ref('QueryResponse'), 'The answer, or an abstention (`abstained: true`)'),
        '400': problemResponse('`invalid_request`'),
        ...WIDGET_REFUSALS,
        '429': problemResponse('`rate_limited` (see `Retry-After`)'),
        '503': problemResponse('`unavailable` (see `Retry-After`)'),
      },
    },
    handler: answerAsJson,
  },
  {
    method: 'post',
    path: '/query/stream',
    body: QueryRequestSchema,
    operation: {
      summary: 'Answer a question as server-sent events',
      description:
        'Frames `token`, `citations`, `abstain`, `reset`, `suggestions`, then exactly one of `done` or `error`; each is ' +
        '`event: <type>` plus one `data:` line of JSON whose `type` repeats the event name; `done` carries `abstained` and the answer\'s ' +
        '`provenance` (additive, to send back with feedback). Refusals are the same as the JSON endpoint and never open a stream.',
      security: [{ widgetToken: [] }],
      parameters: [kbIdParameter],
      responses: {
        '200': { description: 'The stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        '4XX': problemResponse('As for the JSON endpoint'),
      },
    },
    middleware: (deps) => [streamCap(deps.openStreams)],
    handler: answerAsEventStream,
  },
];

/** The query endpoints ({@link QUERY_ROUTES}), mounted. */
export function queryRoutes(deps: QueryRouteDeps): Router {
  return mountRoutes(QUERY_ROUTES, deps);
}

/** Hands the answered question to the question log, when it is on. */
function logQuestion(
  deps: QueryRouteDeps,
  kbId: string,
  question: string,
  provenance: QueryResponse['provenance'],
  citations: readonly EngineCitation[],
  started: number,
  channel: 'json' | 'stream',
): void {
  if (deps.questionLog === undefined) return;
  deps.questionLog.record({
    kbId,
    createdAt: deps.now(),
    question,
    provenance,
    citedDocIds: [...new Set(citations.map((citation) => citation.passage.docId))],
    latencyMs: performance.now() - started,
    channel,
  });
}

/** How long a stream ended at its deadline may take to flush its last frame before its connection is closed. */
const FLUSH_GRACE_MILLISECONDS = 2000;

/**
 * Streams one answer on an open event stream until its terminal frame;
 * never rejects (a failure becomes the `error` frame and is logged).
 */
async function answerAsStream(
  deps: QueryRouteDeps,
  query: ReturnType<typeof parseQueryBody>,
  grant: WidgetLocals['grant'],
  stream: EventStream,
  response: Response,
): Promise<void> {
  const started = performance.now();
  // The citations of the answer as it stands (a reset clears them).
  let citations: EngineCitation[] = [];
  // One signal for the engine: the client went, or the stream's deadline
  // passed. (AbortSignal.any would do, at a few hundred bytes more per open stream.)
  const work = new AbortController();
  const abandon = () => work.abort();
  stream.signal.addEventListener('abort', abandon, { once: true });
  // At the deadline the work is abandoned and the stream ends at once; a
  // client that stopped reading cannot take the end frame either, so its
  // connection is closed when the frame is not flushed soon.
  const timer = setTimeout(() => {
    work.abort();
    const seconds = Math.round(deps.maxStreamMilliseconds / 1000);
    const flushed = stream.finish({ type: 'error', code: 'timeout', message: `The answer took longer than ${seconds} s and was stopped; try again` });
    const grace = setTimeout(() => response.destroy(), FLUSH_GRACE_MILLISECONDS);
    void flushed.then(() => clearTimeout(grace));
  }, deps.maxStreamMilliseconds);
  const events = deps.engine.answer({
    question: query.question,
    reach: grant.reach,
    topK: query.topK,
    signal: work.signal,
  });
  deps.metrics?.openStreams.inc();
  try {
    for await (const event of events) {
      if (event.type === 'done') {
        await stream.finish({ type: 'done', abstained: event.abstained, provenance: event.provenance });
        deps.metrics?.answers.inc({ provenance: event.provenance });
        logQuestion(deps, grant.reach.kbId, query.question, event.provenance, citations, started, 'stream');
        return;
      }
      if (event.type === 'citations') citations = event.citations;
      else if (event.type === 'reset' || event.type === 'abstain') citations = [];
      if (!(await stream.send(toFrame(deps, event)))) return;
    }
    if (!stream.closed) await stream.finish({ type: 'error', code: 'internal', message: 'The answer ended unexpectedly' });
  } catch (error) {
    if (work.signal.aborted) return; // already ended, the work abandoned on purpose
    deps.logger.error({ err: error, kbId: grant.token.kbId }, 'answer stream failed');
    await stream.finish(errorFrame(error));
  } finally {
    clearTimeout(timer);
    stream.signal.removeEventListener('abort', abandon);
    deps.metrics?.openStreams.dec();
  }
}

/** The terminal `error` frame for a failure after the stream opened; messages are for the asker. */
function errorFrame(error: unknown): ErrorFrame {
  if (error instanceof StoreUnavailableError) {
    return { type: 'error', code: 'upstream_unavailable', message: 'The knowledge base became unavailable while answering; try again shortly' };
  }
  if (error instanceof GenerationError) {
    const messages: Record<GenerationError['code'], string> = {
      upstream_unavailable: 'The answer generator is unavailable; try again shortly',
      timeout: 'The answer took too long to generate; try again',
      generation_failed: 'Generating the answer failed part-way',
    };
    return { type: 'error', code: error.code, message: messages[error.code] };
  }
  return { type: 'error', code: 'generation_failed', message: 'Generating the answer failed part-way' };
}

function toFrame(deps: QueryRouteDeps, event: Exclude<AnswerEvent, { type: 'done' }>): StreamFrame {
  switch (event.type) {
    case 'citations':
      return { type: 'citations', citations: toWireCitations(event.citations, deps.codec, true) };
    case 'token':
      return { type: 'token', text: event.text };
    case 'reset':
      return { type: 'reset' };
    case 'abstain':
      return { type: 'abstain', answer: event.answer };
    case 'suggestions':
      return { type: 'suggestions', questions: event.questions };
  }
}
