import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { passwordPolicyProblem } from './auth/password-hash.ts';
import { DEFAULT_ANSWER_CACHE_SIZE } from './engine/answer-cache.ts';
import { DEFAULT_MAX_TOKENS } from './engine/generation/chat-completions-client.ts';
import { MAX_CACHED_POSTINGS } from './retrieval/index-cache.ts';

/**
 * Configuration from environment variables (docs/operations.md "Configuration"). Only
 * the entry points (`server/main.ts`, `server/cli/main.ts`) pass
 * `process.env` here; everything else receives a {@link Config}.
 */
export interface Config {
  /** TCP port of the API server. */
  port: number;
  /** Interface to listen on; undefined = all interfaces. */
  host: string | undefined;
  /** Port of the demo page `npm start` serves; 0 turns it off. */
  demoPort: number;
  /**
   * Whether each start creates the demo knowledge base and ingests the
   * bundled Node.js docs into it (`KB_DEMO_SEED`, `on` by default); `off`
   * seeds only the owner, and serves no demo page.
   */
  demoSeed: boolean;
  /** Folder of the embedded store. */
  dataDir: string;
  /** Platform cap on a widget token's lifetime, minutes. */
  tokenTtlCapMinutes: number;
  /** Evidence score (0..1) below which the service abstains. */
  abstentionThreshold: number;
  /**
   * Worker threads computing answers (retrieval and sentence selection), >= 1;
   * default: one per CPU (measured on 2 cores: one thread fewer gave a lower
   * median but a p99 of about 700 ms at 32 clients; one per CPU about 110 ms).
   */
  answerThreads: number;
  /**
   * Answers kept on the main thread and served again to the same question
   * in the same reach while the knowledge base's content is unchanged
   * (engine/answer-cache.ts); 0 keeps none.
   */
  answerCacheSize: number;
  /**
   * Most postings each answer worker holds in memory, over all knowledge
   * bases (retrieval/index-cache.ts: about 12 bytes a posting); a knowledge
   * base that does not fit is searched by reading its terms from the store.
   */
  indexCachePostings: number;
  /**
   * Dense retrieval with the embedding model (`KB_EMBEDDING`, `on` by
   * default); `off` answers with BM25F alone, as a server without the model does.
   */
  embedding: boolean;
  /** Worker threads that embed passages after an ingest (`KB_EMBEDDING_THREADS`), >= 1; default one per CPU. */
  embeddingThreads: number;
  /**
   * Longest time to find the passages for one question, waiting for a free
   * answer thread included, milliseconds; then the request gets 503
   * `unavailable` (engine/answer-pool.ts).
   */
  retrievalTimeoutMs: number;
  /** Requests a minute allowed per client IP on the widget endpoints. */
  rateLimitPerIp: number;
  /** Requests a minute allowed per widget token. */
  rateLimitPerToken: number;
  /** Proxies in front of the server whose X-Forwarded-For is trusted (Express `trust proxy`). */
  trustedProxies: number;
  /** Answer streams one widget token may hold open at once, per server process. */
  maxStreamsPerToken: number;
  /** Longest life of one answer stream, seconds. */
  maxStreamSeconds: number;
  /** Email of the owner created on first run. */
  ownerEmail: string;
  /**
   * Console password the owner gets when they have none yet (first run);
   * undefined = a random one, printed once. Never logged.
   */
  ownerPassword: string | undefined;
  /** pino log level. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * The OpenAI-compatible chat model that writes retrieved answers (checked
   * for grounding); undefined = extractive answers only.
   */
  llm: LlmConfig | undefined;
  /**
   * Private addresses the website importer may reach (`KB_IMPORT_ALLOW_PRIVATE_ADDRESSES`):
   * `false` (default) none, `true` all, or a list of addresses (an intranet docs host).
   */
  importAllowPrivateAddresses: boolean | string[];
  /** Days a logged question is kept (`KB_QUESTION_LOG_RETENTION_DAYS`, default 30); 0 turns the log off. */
  questionLogRetentionDays: number;
}

/** Where the chat model is and how long to wait for it (`KB_LLM_*`). */
export interface LlmConfig {
  /** API base URL; `/chat/completions` is appended, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Model name sent with each request. */
  model: string;
  /** Bearer token, when the server wants one. */
  apiKey: string | undefined;
  /** Longest time for one whole answer, milliseconds. */
  timeoutMs: number;
  /** `max_tokens` sent with each request: the longest reply the model may write. */
  maxTokens: number;
}

const integer = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const schema = z.object({
  PORT: integer(8787, 0, 65535),
  HOST: z.string().min(1).optional(),
  KB_DEMO_PORT: integer(5173, 0, 65535),
  KB_DEMO_SEED: z.enum(['on', 'off']).default('on'),
  KB_DATA_DIR: z.string().min(1).default('.data'),
  KB_TOKEN_TTL_CAP_MINUTES: integer(1440, 1, 525_600),
  KB_ABSTENTION_THRESHOLD: z.coerce.number().min(0).max(1).optional(),
  KB_ANSWER_THREADS: integer(availableParallelism(), 1, 64),
  KB_ANSWER_CACHE_SIZE: integer(DEFAULT_ANSWER_CACHE_SIZE, 0, 1_000_000),
  KB_INDEX_MEMORY_POSTINGS: integer(MAX_CACHED_POSTINGS, 0, 1_000_000_000),
  KB_EMBEDDING: z.enum(['on', 'off']).default('on'),
  KB_EMBEDDING_THREADS: integer(availableParallelism(), 1, 64),
  KB_RETRIEVAL_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(5),
  KB_RATE_LIMIT_PER_IP: integer(120, 1, 1_000_000),
  KB_RATE_LIMIT_PER_TOKEN: integer(600, 1, 1_000_000),
  KB_TRUSTED_PROXIES: integer(0, 0, 32),
  KB_MAX_STREAMS_PER_TOKEN: integer(8, 1, 100_000),
  KB_MAX_STREAM_SECONDS: integer(120, 1, 3600),
  KB_OWNER_EMAIL: z.string().email().default('owner@example.com'),
  KB_OWNER_PASSWORD: z
    .string()
    .optional()
    .superRefine((value, context) => {
      const problem = value === undefined ? undefined : passwordPolicyProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KB_LLM_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  KB_LLM_MODEL: z.string().min(1).optional(),
  KB_LLM_API_KEY: z.string().min(1).optional(),
  KB_LLM_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(30),
  KB_LLM_MAX_TOKENS: integer(DEFAULT_MAX_TOKENS, 16, 32_768),
  KB_QUESTION_LOG_RETENTION_DAYS: integer(30, 0, 3650),
  KB_IMPORT_ALLOW_PRIVATE_ADDRESSES: z
    .string()
    .default('false')
    .transform((text, context) => {
      const value = text.trim().toLowerCase();
      if (value === 'true' || value === 'false') return value === 'true';
      const addresses = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
      const malformed = addresses.find((entry) => isIP(entry) === 0);
      if (malformed !== undefined) context.addIssue({ code: 'custom', message: `must be true, false or IP addresses separated by commas ("${malformed}" is not one)` });
      return addresses;
    }),
});

/** Variables whose values never appear in an error message. */
const SECRET_VARIABLES = new Set(['KB_OWNER_PASSWORD', 'KB_LLM_API_KEY']);

/**
 * @param env the environment (`process.env`)
 * @param defaults values the caller prefers where the environment says nothing
 * @throws Error listing every invalid variable with its value
 */
export function loadConfig(env: Record<string, string | undefined>, defaults: { abstentionThreshold: number }): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const name = String(issue.path[0]);
        const shown = SECRET_VARIABLES.has(name) ? '(hidden)' : JSON.stringify(env[name]);
        return `${name}=${shown}: ${issue.message}`;
      });
  if (parsed.success && parsed.data.KB_LLM_BASE_URL !== undefined && parsed.data.KB_LLM_MODEL === undefined) {
    problems.push(`KB_LLM_MODEL is required when KB_LLM_BASE_URL is set (KB_LLM_BASE_URL=${JSON.stringify(env.KB_LLM_BASE_URL)})`);
  }
  if (!parsed.success || problems.length > 0) throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  const values = parsed.data;
  return {
    port: values.PORT,
    host: values.HOST,
    demoPort: values.KB_DEMO_PORT,
    demoSeed: values.KB_DEMO_SEED === 'on',
    dataDir: resolve(values.KB_DATA_DIR),
    tokenTtlCapMinutes: values.KB_TOKEN_TTL_CAP_MINUTES,
    abstentionThreshold: values.KB_ABSTENTION_THRESHOLD ?? defaults.abstentionThreshold,
    answerThreads: values.KB_ANSWER_THREADS,
    answerCacheSize: values.KB_ANSWER_CACHE_SIZE,
    indexCachePostings: values.KB_INDEX_MEMORY_POSTINGS,
    embedding: values.KB_EMBEDDING === 'on',
    embeddingThreads: values.KB_EMBEDDING_THREADS,
    retrievalTimeoutMs: Math.round(values.KB_RETRIEVAL_TIMEOUT_SECONDS * 1000),
    rateLimitPerIp: values.KB_RATE_LIMIT_PER_IP,
    rateLimitPerToken: values.KB_RATE_LIMIT_PER_TOKEN,
    trustedProxies: values.KB_TRUSTED_PROXIES,
    maxStreamsPerToken: values.KB_MAX_STREAMS_PER_TOKEN,
    maxStreamSeconds: values.KB_MAX_STREAM_SECONDS,
    ownerEmail: values.KB_OWNER_EMAIL.toLowerCase(),
    ownerPassword: values.KB_OWNER_PASSWORD,
    logLevel: values.LOG_LEVEL,
    llm:
      values.KB_LLM_BASE_URL !== undefined && values.KB_LLM_MODEL !== undefined
        ? {
            baseUrl: values.KB_LLM_BASE_URL,
            model: values.KB_LLM_MODEL,
            apiKey: values.KB_LLM_API_KEY,
            timeoutMs: values.KB_LLM_TIMEOUT_SECONDS * 1000,
            maxTokens: values.KB_LLM_MAX_TOKENS,
          }
        : undefined,
    importAllowPrivateAddresses: values.KB_IMPORT_ALLOW_PRIVATE_ADDRESSES,
    questionLogRetentionDays: values.KB_QUESTION_LOG_RETENTION_DAYS,
  };
}
