import { createParser } from 'eventsource-parser';
import { GenerationError } from '../../errors.ts';

/**
 * A streaming client for an OpenAI-compatible chat completions endpoint
 * (`POST {baseUrl}/chat/completions`, as served by OpenAI, Ollama, vLLM,
 * llama.cpp and others; docs/design-decisions.md "The engine").
 *
 * Request: JSON `{ model, messages, stream: true, temperature: 0, max_tokens }`,
 * with `Authorization: Bearer <apiKey>` when a key is configured. Response: server-
 * sent events (parsed with eventsource-parser), one JSON chunk per `data:`
 * line, `{"choices":[{"delta":{"content":"..."}}]}`, ended by `data: [DONE]`
 * (a chunk with a `finish_reason` also counts as a complete answer when a
 * server omits `[DONE]`).
 *
 * Failures are {@link GenerationError}s: `upstream_unavailable` when the
 * server cannot be reached, answers with an HTTP error status or a non-SSE
 * body, or fails before the first text delta; `generation_failed` when the
 * stream breaks after text arrived; `timeout` when the whole completion takes
 * longer than `timeoutMs`; `generation_failed` too when the response body
 * grows past {@link MAX_RESPONSE_BYTES} (a server ignoring `max_tokens`).
 * When the caller's signal aborts (the asker has gone), or the consumer stops
 * reading, the request to the model server is aborted too (and on abort the
 * signal's reason is thrown).
 */

/** One message of the conversation sent to the model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Streams a model's reply. The engine depends on this interface only. */
export interface ChatClient {
  /**
   * @param messages the prompt
   * @param signal aborted when the asker has gone
   * @returns the reply's text deltas, in order; it ends when the reply is complete
   * @throws GenerationError; the signal's reason when the signal aborts
   */
  complete(messages: readonly ChatMessage[], signal?: AbortSignal): AsyncGenerator<string>;
}

/** Settings of {@link createChatCompletionsClient}. */
export interface ChatCompletionsOptions {
  /** API base, e.g. `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** Model name sent as `model`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Longest time for the whole completion, milliseconds; default {@link DEFAULT_CHAT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** `max_tokens` of each request, the longest reply; default {@link DEFAULT_MAX_TOKENS}. */
  maxTokens?: number;
}

/** Default longest time for one completion: 30 s. */
export const DEFAULT_CHAT_TIMEOUT_MS = 30_000;

/**
 * Default `max_tokens`: 1,024 tokens, about 4,000 characters of English,
 * three times the longest answer the prompt asks for.
 */
export const DEFAULT_MAX_TOKENS = 1_024;

/**
 * Most bytes of one streamed response read before the stream is given up as
 * `generation_failed`: 4 MiB, room for a few thousand tokens even at a few
 * hundred bytes of JSON framing each, far below what could stall the server.
 */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Characters of an error response body kept in the error message. */
const ERROR_BODY_CHARACTERS = 300;

export function createChatCompletionsClient(options: ChatCompletionsOptions): ChatClient {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS;
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;

  async function* complete(messages: readonly ChatMessage[], signal?: AbortSignal): AsyncGenerator<string> {
    signal?.throwIfAborted();
    // Aborted on timeout, and when the consumer stops early, so the connection is never left open.
    const local = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      local.abort();
    }, timeoutMs);
    const combined = signal ? AbortSignal.any([signal, local.signal]) : local.signal;
    let received = false;

    /** The error to throw for a failure, given whether text had arrived. */
    const failure = (error: unknown): unknown => {
      if (signal?.aborted) return signal.reason;
      if (timedOut) {
        return new GenerationError('timeout', `No complete answer from ${url} within ${timeoutMs / 1000} s`, { cause: error });
      }
      if (error instanceof GenerationError) return error;
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      return received
        ? new GenerationError('generation_failed', `The answer stream from ${url} broke: ${reason}`, { cause: error })
        : new GenerationError('upstream_unavailable', `No answer from ${url}: ${reason}`, { cause: error });
    };

    try {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: options.model, messages, stream: true, temperature: 0, max_tokens: maxTokens }),
          signal: combined,
        });
      } catch (error) {
        throw failure(error);
      }
      if (!response.ok) {
        const body = await readSnippet(response).catch(() => '');
        signal?.throwIfAborted();
        throw new GenerationError(
          'upstream_unavailable',
          `${url} answered HTTP ${response.status}${body ? `: ${body}` : ''}`,
        );
      }
      const contentType = response.headers.get('content-type') ?? '';
      if (!contentType.includes('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        throw new GenerationError('upstream_unavailable', `${url} answered with "${contentType}" instead of an event stream`);
      }

      const pending: string[] = [];
      const parser = createParser({ onEvent: (event) => pending.push(event.data) });
      const decoder = new TextDecoder();
      let finished = false;
      let bytesRead = 0;
      try {
        for await (const bytes of response.body) {
          bytesRead += bytes.byteLength;
          if (bytesRead > MAX_RESPONSE_BYTES) {
            throw new GenerationError('generation_failed', `${url} sent more than ${MAX_RESPONSE_BYTES / (1024 * 1024)} MiB for one answer`);
          }
          parser.feed(decoder.decode(bytes, { stream: true }));
          for (const data of pending.splice(0)) {
            if (data.trim() === '[DONE]') return;
            const chunk = parseChunk(data, url, received);
            if (chunk.finished) finished = true;
            if (chunk.content) {
              received = true;
              yield chunk.content;
            }
          }
        }
      } catch (error) {
        throw failure(error);
      }
      if (!finished) {
        throw failure(new Error('the stream ended before [DONE]'));
      }
    } finally {
      clearTimeout(timer);
      local.abort();
    }
  }

  return { complete };
}

/** The text and completion state of one `data:` chunk. */
function parseChunk(data: string, url: string, received: boolean): { content: string; finished: boolean } {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new GenerationError(received ? 'generation_failed' : 'upstream_unavailable', `${url} sent a chunk that is not JSON: ${data.slice(0, 100)}`);
  }
  if (!isRecord(chunk)) return { content: '', finished: false };
  if (chunk.error !== undefined && chunk.error !== null) {
    const message = isRecord(chunk.error) && typeof chunk.error.message === 'string' ? chunk.error.message : JSON.stringify(chunk.error);
    throw new GenerationError(received ? 'generation_failed' : 'upstream_unavailable', `${url} reported an error: ${message}`);
  }
  const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as unknown) : undefined;
  if (!isRecord(choice)) return { content: '', finished: false };
  const content = isRecord(choice.delta) && typeof choice.delta.content === 'string' ? choice.delta.content : '';
  return { content, finished: typeof choice.finish_reason === 'string' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readSnippet(response: Response): Promise<string> {
  const text = await response.text();
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > ERROR_BODY_CHARACTERS ? `${flat.slice(0, ERROR_BODY_CHARACTERS)}…` : flat;
}
