import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's metrics in the Prometheus text format (prom-client), served
 * at `GET /metrics`: requests by route and status with their latency,
 * answers by provenance, open answer streams, ingest jobs - website imports
 * and uploads - (running, ended by outcome), and the process's own
 * (CPU, memory, event-loop delay, handles). One registry per app, so that
 * several apps in one process (tests, replicas) never share counts.
 */
export interface ServiceMetrics {
  registry: Registry;
  /** Seconds from a request's arrival to its response's end, by method, route template and status (observed by http/request-log.ts). */
  requestDuration: Histogram<'method' | 'route' | 'status'>;
  /** Answers delivered (JSON or stream), by provenance: `generated`, `abstained`, `qa_shortcut`. */
  answers: Counter<'provenance'>;
  /** Answer streams open now. */
  openStreams: Gauge;
  /** Ingest jobs running now, by kind: `import` (a website import), `upload` (files) (ingest/jobs/ingest-jobs.ts). */
  runningIngestJobs: Gauge<'kind'>;
  /** Ingest jobs ended, by kind and outcome: `succeeded`, `failed`. */
  ingestJobs: Counter<'kind' | 'outcome'>;
  /** 1 for how answers retrieve passages: mode `hybrid` (BM25F and dense) or `lexical` (BM25F alone, the embedding model missing), and the model. */
  retrieval: Gauge<'mode' | 'model'>;
}

/**
 * Latency buckets, seconds: from 5 ms (a curated answer) to 30 s (a long
 * stream from a chat model).
 */
/** The kinds of ingest job (ingest/jobs/ingest-jobs.ts IngestJobKind). */
const INGEST_JOB_KINDS = ['import', 'upload'] as const;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics: ServiceMetrics = {
    registry,
    requestDuration: new Histogram({
      name: 'kb_http_request_duration_seconds',
      help: 'Time from a request to the end of its response, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    answers: new Counter({
      name: 'kb_answers_total',
      help: 'Answers delivered, by provenance (generated, abstained, qa_shortcut)',
      labelNames: ['provenance'] as const,
      registers: [registry],
    }),
    openStreams: new Gauge({ name: 'kb_open_streams', help: 'Answer streams open now', registers: [registry] }),
    runningIngestJobs: new Gauge({
      name: 'kb_ingest_jobs_running',
      help: 'Ingest jobs running now, by kind (import: a website import, upload: an upload of files)',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    retrieval: new Gauge({
      name: 'kb_retrieval_info',
      help: 'How answers retrieve passages: 1 for the mode in use (hybrid: BM25F and dense retrieval; lexical: BM25F alone, the embedding model unavailable) and the embedding model',
      labelNames: ['mode', 'model'] as const,
      registers: [registry],
    }),
    ingestJobs: new Counter({
      name: 'kb_ingest_jobs_total',
      help: 'Ingest jobs ended, by kind (import, upload) and outcome (succeeded, failed)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
  };
  // Every series from the start, at 0, so that a rate or an alert sees it before the first job.
  for (const kind of INGEST_JOB_KINDS) {
    metrics.runningIngestJobs.set({ kind }, 0);
    for (const outcome of ['succeeded', 'failed']) metrics.ingestJobs.inc({ kind, outcome }, 0);
  }
  return metrics;
}

/**
 * Names a request path by its route template, so that labels stay few:
 * `/kb-api/api/v1/kb/node-docs/widget/query` is
 * `/kb-api/api/v1/kb/{kbId}/widget/query`. Unknown paths are `other`.
 *
 * @param templates the API's path templates (`{name}` segments; `{docId}` may span several segments)
 * @param fixed paths that are their own template (`/healthz`, `/widget/kb-widget.js`, ...)
 */
export function routeTemplateOf(templates: readonly string[], fixed: readonly string[]): (path: string) => string {
  const patterns = templates.map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{docId\}/g, '.+').replace(/\{\w+\}/g, '[^/]+')}$`),
  }));
  const known = new Set(fixed);
  return (path) => {
    if (known.has(path)) return path;
    return patterns.find(({ pattern }) => pattern.test(path))?.template ?? 'other';
  };
}

/** `GET /metrics`: the registry in the Prometheus text format. */
export function metricsRoute(metrics: ServiceMetrics): RequestHandler {
  return async (_request, response) => {
    response.setHeader('Content-Type', metrics.registry.contentType);
    response.setHeader('Cache-Control', 'no-store');
    response.end(await metrics.registry.metrics());
  };
}
