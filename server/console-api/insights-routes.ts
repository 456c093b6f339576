import { stringify } from 'csv-stringify/sync';
import type { Request, Response } from 'express';
import type { Insights } from '../../protocol/console-protocol.ts';
import { memberReach } from '../access/access-rules.ts';
import { questionTerms } from '../engine/answer-engine.ts';
import { coverageGaps } from '../question-log/coverage-gaps.ts';
import { rankFaqPairs, SHORTCUT_SIMILARITY } from '../engine/qa-shortcut.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { problem } from '../http/problem.ts';
import type { RouteRecord } from '../http/route-record.ts';
import type { QuestionLogRecord, Role, Store } from '../store/store.ts';
import { problemReports } from './problem-reports.ts';
import { membership, readableDocuments, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { consoleErrors } from './openapi-parts.ts';

/** Longest period the insights cover, days. */
export const MAX_INSIGHT_DAYS = 365;
/** Most logged questions an insights view reads (the newest): enough for a month of a busy help site. */
export const MAX_INSIGHT_QUESTIONS = 20_000;
/** Most coverage gaps and 👎 answers listed. */
const MAX_LISTED = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Questions and abstentions per day, coverage gaps, 👎 answers and problem reports of a period (editors and owners). */
async function showInsights(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Reading insights');
  const days = periodOf(request);
  const since = periodStart(days, deps.now());
  const firstDay = since / DAY_MS;
  const counts = new Map((await store.questionLogDays(kbId, since)).map((day) => [day.day, day]));
  const perDay = Array.from({ length: days }, (_, offset) => {
    const day = firstDay + offset;
    const found = counts.get(day);
    return { date: new Date(day * DAY_MS).toISOString().slice(0, 10), questions: found?.questions ?? 0, abstained: found?.abstained ?? 0 };
  });
  const questions = perDay.reduce((sum, day) => sum + day.questions, 0);
  const abstained = perDay.reduce((sum, day) => sum + day.abstained, 0);
  const records = await store.listQuestionLog(kbId, { limit: MAX_INSIGHT_QUESTIONS, since });
  const readable = await readableDocuments(store, kbId, signedInUser(response).id, role);
  // A gap a curated answer now covers is marked with it (the same match as the widget's qa_shortcut).
  const curatedAnswers = (await store.listFaq(kbId)).filter((pair) => pair.sources.every((source) => readable.has(source.docId)));
  response.json({
    days,
    questions,
    abstained,
    abstention_rate: questions === 0 ? 0 : abstained / questions,
    per_day: perDay,
    coverage_gaps: coverageGaps(records.filter((record) => record.provenance === 'abstained'))
      .slice(0, MAX_LISTED)
      .map((gap) => {
        const curated = rankFaqPairs(questionTerms(gap.question), curatedAnswers)[0];
        return {
          question: gap.question,
          count: gap.count,
          questions: gap.questions,
          last_asked_at: new Date(gap.lastAskedAt).toISOString(),
          ...(curated && curated.similarity >= SHORTCUT_SIMILARITY ? { curated_answer_id: curated.pair.id } : {}),
        };
      }),
    downvoted: records
      .filter((record) => record.rating === 'down')
      .slice(0, MAX_LISTED)
      .map((record) => ({
        question: record.question,
        asked_at: new Date(record.createdAt).toISOString(),
        ...(record.ratingReason === undefined ? {} : { reason: record.ratingReason }),
        cited_doc_ids: record.citedDocIds.filter((docId) => readable.has(docId)),
      })),
    problem_reports: await problemReports(store, memberReach(kbId, signedInUser(response).id, role), since, MAX_LISTED),
  } satisfies Insights);
}

/** Every logged question of the period as CSV (editors and owners), as {@link questionsCsv} writes it. */
async function exportQuestions(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Exporting questions');
  const days = periodOf(request);
  const since = periodStart(days, deps.now());
  const records = await store.listQuestionLog(kbId, { limit: MAX_INSIGHT_QUESTIONS, since });
  const readable = await readableDocuments(store, kbId, signedInUser(response).id, role);
  response
    .type('text/csv; charset=utf-8')
    .attachment(`${kbId}-questions-${days}d.csv`)
    .send(questionsCsv(records, readable));
}

/**
 * What visitors asked and where the documentation falls short, from the
 * question log (editors and owners): `GET …/insights?days=30` (JSON) and
 * `GET …/questions.csv?days=30` (every logged question of the period).
 * Cited documents the reader cannot read are left out of both.
 */
export const INSIGHTS_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/insights',
    operation: {
      summary: 'Questions and abstentions per day, coverage gaps (abstained questions grouped by similarity), 👎 answers from the question log, and problem reports with their passages (editors and owners)',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 365, default: 30 }, description: 'Days covered, ending today (UTC)' }],
      responses: {
        '200': json(ref('Insights'), 'Insights of the period'),
        '400': problemResponse('`days` out of range (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: showInsights,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/questions.csv',
    operation: {
      summary: 'Every logged question of the period as CSV (editors and owners): asked_at, question, provenance, cited_documents, latency_ms, endpoint, rating, rating_reason, problem_reports',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 365, default: 30 } }],
      responses: {
        '200': { description: 'The questions, newest first', content: { 'text/csv': { schema: { type: 'string' } } } },
        '400': problemResponse('`days` out of range (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: exportQuestions,
  },
];

/**
 * The log as CSV (RFC 4180, csv-stringify), a header row first. A cell a
 * spreadsheet would run as a formula (starting `=`, `+`, `-`, `@`, tab or
 * carriage return) is prefixed with `'`, as OWASP's CSV injection advice
 * says: questions are typed by anyone.
 */
export function questionsCsv(records: readonly QuestionLogRecord[], readable: ReadonlyMap<string, unknown>): string {
  const cell = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
  return stringify(
    records.map((record) => [
      new Date(record.createdAt).toISOString(),
      cell(record.question),
      record.provenance,
      cell(record.citedDocIds.filter((docId) => readable.has(docId)).join(' ')),
      Math.round(record.latencyMs),
      record.channel,
      record.rating ?? '',
      cell(record.ratingReason ?? ''),
      record.problemReports,
    ]),
    { header: true, columns: ['asked_at', 'question', 'provenance', 'cited_documents', 'latency_ms', 'endpoint', 'rating', 'rating_reason', 'problem_reports'] },
  );
}

/** `?days=`: 1 to {@link MAX_INSIGHT_DAYS}, default 30. */
function periodOf(request: Request): number {
  const text = request.query['days'];
  if (text === undefined) return 30;
  const days = Number(text);
  if (typeof text !== 'string' || !Number.isInteger(days) || days < 1 || days > MAX_INSIGHT_DAYS) {
    throw problem(400, 'invalid_request', `days must be a whole number from 1 to ${MAX_INSIGHT_DAYS}`);
  }
  return days;
}

/** The first instant of a period of `days` whole UTC days ending with today's, epoch ms. */
function periodStart(days: number, now: number): number {
  return (Math.floor(now / DAY_MS) - days + 1) * DAY_MS;
}
