/**
 * Stream client of the widget: asks one question on the streaming endpoint
 * (docs/specification.md "Endpoints", "Stream frames"
 * and "Refused requests") and hands each valid frame
 * to the caller as it arrives.
 *
 * DOM-free: only `fetch`, `AbortSignal`, `TextDecoderStream` and
 * eventsource-parser's `EventSourceParserStream`, so it runs in a browser and
 * in Node alike. Wire types come in with `import type`: no validator and no
 * server code reaches the widget bundle.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { Citation, Provenance, SourceSpan, StreamErrorCode, StreamFrame } from '../protocol/query-protocol.ts';
import { PROVENANCES } from '../protocol/query-terms.ts';

/**
 * Most characters (UTF-16 code units) the SSE parser holds for one event
 * that has not ended yet: 1 Mi, about 1 MiB of ASCII. A response that sends
 * more without ending the event is abandoned as `interrupted` instead of
 * growing memory without bound. The server's largest frame, a `citations`
 * frame with quoted passages of at most 1,200 characters each, is far below it.
 */
export const MAX_BUFFER_SIZE = 1024 * 1024;

/** Where a widget request goes and with which token. */
export interface WidgetEndpoint {
  /** Service origin and optional path prefix, e.g. `https://kb.example.com`; trailing slashes are ignored. */
  baseUrl: string;
  /** Knowledge base the token is bound to; percent-encoded into the path. */
  kbId: string;
  /** Widget token, sent as `Authorization: Bearer <token>`. */
  token: string;
  /** The `fetch` to use (tests, instrumented pages); default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * POSTs a JSON body to a widget endpoint, `{baseUrl}/kb-api/api/v1/kb/{kbId}/widget/{path}`,
 * with `Content-Type: application/json`, `Authorization: Bearer <token>`
 * and no cookies.
 *
 * @param init more headers, and a signal
 * @returns the response; rejects as `fetch` does (network, CORS, abort)
 */
export function postToWidget(
  endpoint: WidgetEndpoint,
  path: string,
  body: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  // A local binding, so that a passed `window.fetch` is not called with `endpoint` as `this`.
  const fetchFunction = endpoint.fetch ?? fetch;
  return fetchFunction(`${endpoint.baseUrl.replace(/\/+$/, '')}/kb-api/api/v1/kb/${encodeURIComponent(endpoint.kbId)}/widget/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${endpoint.token}`, ...init.headers },
    body: JSON.stringify(body),
    credentials: 'omit',
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

/** What {@link askQuestion} needs: where to ask, with which token, and what to do with each frame. */
export interface AskOptions extends WidgetEndpoint {
  /** The question, sent as is (the server trims it and checks 1..2000 characters). */
  question: string;
  /** Passages to retrieve (1..20), sent as `top_k`; omitted when undefined so the service chooses. */
  topK?: number;
  /** Aborts the question: the request or the open stream is closed and the outcome is `aborted`. */
  signal: AbortSignal;
  /**
   * Called synchronously for each valid frame, in order, the terminal frame
   * (`done` or `error`) included; never after the terminal frame or after
   * `signal` aborted. An exception it throws closes the stream and rejects
   * the promise of {@link askQuestion} with that exception.
   */
  onFrame: (frame: StreamFrame) => void;
  /**
   * Milliseconds to wait, from the request on, for the next sign of life (a
   * frame of any kind or a comment such as the server's `: ping` heartbeat,
   * sent every 15 s while nothing else is, docs/specification.md) before
   * the question ends as `stalled`; no limit when undefined.
   */
  idleMilliseconds?: number | undefined;
}

/**
 * How a question ended. The element maps each kind to words a visitor
 * understands; none of them is thrown.
 *
 * - `done`: the terminal `done` frame arrived; `abstained` repeats its field.
 * - `error`: an `error` frame arrived (generation failed part-way); the frames
 *   before it were delivered and should stay visible with a notice. `code` is
 *   passed through as sent (docs/specification.md lists `generation_failed`,
 *   `upstream_unavailable`, `timeout`, `internal`).
 * - `interrupted`: the stream ended, broke, or exceeded {@link MAX_BUFFER_SIZE}
 *   without a terminal frame.
 * - `aborted`: the caller's signal aborted.
 * - `refused`: the service answered with an HTTP error status (RFC 9457
 *   problem details: `code` from the body, `unknown` when the body is not
 *   such JSON), or with a success status that is not `text/event-stream`
 *   (`code` `unknown`). The problem's `detail` is not kept: the widget words
 *   every refusal by its code.
 *   `retryAfterSeconds` is the `Retry-After` header in whole seconds from now
 *   (RFC 9110 10.2.3: delay-seconds or an HTTP-date), when present and valid.
 * - `offline`: `fetch` itself failed: no network, DNS, refused connection, or
 *   a CORS failure (browsers do not tell these apart).
 * - `stalled`: nothing arrived, not even a heartbeat, for `idleMilliseconds`
 *   (a frozen server or a dead connection); the request was closed.
 */
export type AskOutcome =
  | { kind: 'done'; abstained: boolean }
  | { kind: 'error'; code: string; message: string }
  | { kind: 'interrupted' }
  | { kind: 'aborted' }
  | { kind: 'refused'; status: number; code: string; retryAfterSeconds?: number }
  | { kind: 'offline' }
  | { kind: 'stalled' };

/**
 * Asks one question on the streaming endpoint: `POST
 * {baseUrl}/kb-api/api/v1/kb/{kbId}/widget/query/stream` with `Content-Type:
 * application/json`, `Accept: text/event-stream`, `Authorization: Bearer
 * <token>`, no cookies, and the body `{question, top_k?}` (docs/specification.md "Query request").
 *
 * The response is read as server-sent events (HTML Standard, "Server-sent
 * events": UTF-8, `event:`/`data:` fields, comments such as `: ping` ignored)
 * with eventsource-parser. A frame reaches `onFrame` only when its event
 * name is one of the frame types of docs/specification.md, its data is a JSON object whose
 * `type` equals that name, and its fields have the types of
 * `protocol/query-protocol.ts` (extra fields are dropped; a citation's opaque
 * `source_span` object is kept as sent, see {@link readCitation}). Other events are ignored. After the
 * terminal frame nothing more is delivered and the response body is
 * cancelled, even if the server keeps sending.
 *
 * @returns the outcome; never rejects, except with an exception thrown by `onFrame`
 */
export async function askQuestion(options: AskOptions): Promise<AskOutcome> {
  const { signal, onFrame, idleMilliseconds } = options;
  if (signal.aborted) return { kind: 'aborted' };

  // The request's own controller: follows the caller's signal, closes the
  // connection once nothing arrived for `idleMilliseconds` (each sign of life
  // starts the wait again), and once this function has its outcome (a no-op
  // after a complete response).
  const connection = new AbortController();
  const forwardAbort = () => connection.abort(signal.reason);
  signal.addEventListener('abort', forwardAbort, { once: true });
  let stalled = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const alive = () => {
    clearTimeout(idleTimer);
    if (idleMilliseconds === undefined) return;
    idleTimer = setTimeout(() => {
      stalled = true;
      connection.abort();
    }, idleMilliseconds);
  };
  // What the request made of the connection a stall closed (offline, interrupted) reads as `stalled`.
  const ended = (outcome: AskOutcome): AskOutcome => (stalled ? { kind: 'stalled' } : signal.aborted ? { kind: 'aborted' } : outcome);
  alive();
  try {
    const body: { question: string; top_k?: number } = { question: options.question };
    if (options.topK !== undefined) body.top_k = options.topK;
    let response: Response;
    try {
      response = await postToWidget(options, 'query/stream', body, { headers: { Accept: 'text/event-stream' }, signal: connection.signal });
    } catch {
      return ended({ kind: 'offline' });
    }
    if (!response.ok) return ended(await readRefusal(response));
    const contentType = response.headers.get('Content-Type') ?? '';
    if (response.body === null || !/^text\/event-stream\s*(;|$)/i.test(contentType)) {
      return { kind: 'refused', status: response.status, code: 'unknown' };
    }
    return ended(await readFrames(response.body, signal, onFrame, alive));
  } finally {
    clearTimeout(idleTimer);
    signal.removeEventListener('abort', forwardAbort);
    connection.abort();
  }
}

/**
 * Reads frames until the terminal frame, the end of the stream, a failure or
 * the caller's abort, calling `alive` at each event and comment. Without a
 * terminal frame the outcome is `interrupted`; {@link askQuestion} tells an
 * abort or a stall from it.
 */
async function readFrames(
  body: NonNullable<Response['body']>,
  signal: AbortSignal,
  onFrame: (frame: StreamFrame) => void,
  alive: () => void,
): Promise<AskOutcome> {
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ maxBufferSize: MAX_BUFFER_SIZE, onComment: alive }))
    .getReader();
  try {
    for (;;) {
      // Typed from the reader: `ReadableStreamReadResult` is a DOM global, which Node's types lack.
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch {
        // The connection broke, the caller aborted, or the buffer limit was exceeded.
        return { kind: 'interrupted' };
      }
      if (result.done || signal.aborted) return { kind: 'interrupted' };
      alive();
      const frame = readFrame(result.value.event, result.value.data);
      if (frame === undefined) continue;
      onFrame(frame);
      if (frame.type === 'done') return { kind: 'done', abstained: frame.abstained };
      if (frame.type === 'error') return { kind: 'error', code: frame.code, message: frame.message };
    }
  } finally {
    // Cancelling also cancels the response body; on an errored stream it rejects, which is expected.
    reader.cancel().catch(() => undefined);
  }
}

/** A request the service refused (see {@link AskOutcome}). */
export type Refusal = Extract<AskOutcome, { kind: 'refused' }>;

/**
 * Turns a refused response (RFC 9457 problem details, or anything else, or
 * a body that could not be read) into a `refused` outcome.
 */
export async function readRefusal(response: Response): Promise<Refusal> {
  let problem: unknown;
  try {
    problem = JSON.parse(await response.text());
  } catch {
    // Not JSON, or the body broke off: the status says enough.
  }
  const fields = isRecord(problem) ? problem : {};
  const retryAfterSeconds = parseRetryAfter(response.headers.get('Retry-After'), Date.now());
  return {
    kind: 'refused',
    status: response.status,
    code: typeof fields.code === 'string' ? fields.code : 'unknown',
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  };
}

/**
 * `Retry-After` (RFC 9110 10.2.3) as whole seconds from `now`: delay-seconds
 * as given, an HTTP-date as the seconds until it (rounded up, at least 0).
 * Undefined when absent or neither form.
 */
function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // An HTTP-date always names its day or month; this keeps Date.parse from reading bare numbers as years.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Whether `value` is a plain JSON object (not `null`, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One SSE event as a frame (docs/specification.md "Stream frames"), or undefined when it is unknown or malformed. */
function readFrame(event: string | undefined, data: string): StreamFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || value.type !== event) return undefined;
  switch (event) {
    case 'token':
      return typeof value.text === 'string' ? { type: 'token', text: value.text } : undefined;
    case 'citations': {
      if (!Array.isArray(value.citations)) return undefined;
      const citations: Citation[] = [];
      for (const item of value.citations) {
        const citation = readCitation(item);
        if (citation === undefined) return undefined;
        citations.push(citation);
      }
      return { type: 'citations', citations };
    }
    case 'abstain':
      return typeof value.answer === 'string' ? { type: 'abstain', answer: value.answer } : undefined;
    case 'reset':
      return { type: 'reset' };
    case 'suggestions': {
      const questions = value.questions;
      if (!Array.isArray(questions) || !questions.every((question) => typeof question === 'string')) return undefined;
      return { type: 'suggestions', questions: questions as string[] };
    }
    case 'done': {
      if (typeof value.abstained !== 'boolean') return undefined;
      // `provenance` is additive (docs/specification.md "Stream frames"): kept when it is one of the three, dropped otherwise.
      const provenance = PROVENANCES.find((known) => known === value.provenance);
      return provenance ? { type: 'done', abstained: value.abstained, provenance } : { type: 'done', abstained: value.abstained };
    }
    case 'error':
      if (typeof value.code !== 'string' || typeof value.message !== 'string') return undefined;
      // Passed through as sent: a newer server may add codes, and failing loudly beats reading "interrupted".
      return { type: 'error', code: value.code as StreamErrorCode, message: value.message };
    default:
      return undefined;
  }
}

/**
 * A citation (docs/specification.md "Citation"), or undefined when a required field is missing or
 * of the wrong type. The optional `title` and `url` are kept when
 * they are non-empty strings and dropped otherwise: a newer or older server
 * never costs the visitor the sources.
 *
 * @param value parsed JSON (a frame's or a stored conversation's)
 */
export function readCitation(value: unknown): Citation | undefined {
  if (!isRecord(value)) return undefined;
  const { index, doc_id: documentId, kb_id: knowledgeBaseId, source_span: sourceSpan, text, title, url } = value;
  if (
    typeof index !== 'number' ||
    !Number.isInteger(index) ||
    typeof documentId !== 'string' ||
    typeof knowledgeBaseId !== 'string' ||
    !isRecord(sourceSpan) ||
    (text !== undefined && typeof text !== 'string')
  ) {
    return undefined;
  }
  const citation: Citation = {
    index,
    doc_id: documentId,
    kb_id: knowledgeBaseId,
    // Opaque (docs/specification.md "Citation"): kept exactly as sent, to be passed back unchanged.
    source_span: sourceSpan as unknown as SourceSpan,
  };
  if (text !== undefined) citation.text = text;
  if (typeof title === 'string' && title) citation.title = title;
  if (typeof url === 'string' && url) citation.url = url;
  return citation;
}
