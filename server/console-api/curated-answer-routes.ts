import type { Request, Response } from 'express';
import {
  CuratedAnswerRequestSchema,
  type CuratedAnswer as ConsoleCuratedAnswer,
  type CuratedAnswerList,
  type HeadingList,
} from '../../protocol/console-protocol.ts';
import { memberReach } from '../access/access-rules.ts';
import { problem } from '../http/problem.ts';
import type { RouteRecord } from '../http/route-record.ts';
import { CitationMarkerError, withCitationMarkers } from '../ingest/curated-answer-text.ts';
import type { CuratedAnswer, DocumentRecord, FaqPair, Role } from '../store/store.ts';
import { membership, parseBody, readableDocuments, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { answerId, consoleErrors } from './openapi-parts.ts';

/** The knowledge base's documents the signed-in person can read, by id. */
function readableBy(kbId: string, role: Role, response: Response, deps: ConsoleRouteDeps) {
  return readableDocuments(deps.store, kbId, signedInUser(response).id, role);
}

/** A stored pair the person can see, with the documents they can read; or a 404 problem. */
async function visiblePair(
  request: Request,
  response: Response,
  kbId: string,
  role: Role,
  deps: ConsoleRouteDeps,
): Promise<{ pair: CuratedAnswer; documents: Map<string, DocumentRecord> }> {
  const id = Number(request.params.answerId);
  const documents = await readableBy(kbId, role, response, deps);
  const pair = Number.isSafeInteger(id) ? (await deps.store.listFaq(kbId)).find((candidate) => candidate.id === id) : undefined;
  if (!pair || !pair.sources.every((source) => documents.has(source.docId))) {
    throw problem(404, 'not_found', `No curated answer "${String(request.params.answerId)}" in knowledge base "${kbId}"`);
  }
  return { pair, documents };
}

/** The request's pair, its sources checked against what the editor can read and its markers against its sources. */
async function pairFrom(request: Request, response: Response, kbId: string, role: Role, deps: ConsoleRouteDeps): Promise<FaqPair> {
  const { store } = deps;
  const body = parseBody(CuratedAnswerRequestSchema, request.body);
  const reach = memberReach(kbId, signedInUser(response).id, role);
  for (const [position, source] of body.sources.entries()) {
    if ((await store.countPassages(reach, source.doc_id)) === 0) {
      throw problem(400, 'invalid_request', `sources.${position}.doc_id: no document "${source.doc_id}" that you can read`);
    }
    if (source.heading !== undefined && (await store.passagesOf(reach, source.doc_id, source.heading)).length === 0) {
      throw problem(400, 'invalid_request', `sources.${position}.heading: "${source.doc_id}" has no heading "${source.heading}"`);
    }
  }
  let answer: string;
  try {
    answer = withCitationMarkers(body.answer, body.sources.length);
  } catch (error) {
    if (error instanceof CitationMarkerError) throw problem(400, 'invalid_request', `answer: ${error.message}`);
    throw error;
  }
  return {
    question: body.question,
    answer,
    sources: body.sources.map((source) => (source.heading === undefined ? { docId: source.doc_id } : { docId: source.doc_id, heading: source.heading })),
  };
}

/** The curated answers the person can read, and how many others are hidden. */
async function listCuratedAnswers(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  const documents = await readableBy(kbId, role, response, deps);
  const pairs = await deps.store.listFaq(kbId);
  const visible = pairs.filter((pair) => pair.sources.every((source) => documents.has(source.docId)));
  response.json({
    curated_answers: visible.map((pair) => toConsoleCuratedAnswer(pair, documents)),
    hidden: pairs.length - visible.length,
  } satisfies CuratedAnswerList);
}

/** Adds a curated answer whose sources the editor can read. */
async function addCuratedAnswer(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  requireUpdatePermission(role, 'Adding a curated answer');
  const added = await deps.store.addFaqPair(kbId, await pairFrom(request, response, kbId, role, deps));
  response.status(201).json(toConsoleCuratedAnswer(added, await readableBy(kbId, role, response, deps)) satisfies ConsoleCuratedAnswer);
}

/** Replaces a visible curated answer's question, answer and sources. */
async function replaceCuratedAnswer(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  requireUpdatePermission(role, 'Editing a curated answer');
  const {
    pair: { id },
    documents,
  } = await visiblePair(request, response, kbId, role, deps);
  const pair = await pairFrom(request, response, kbId, role, deps);
  if (!(await deps.store.updateFaqPair(kbId, id, pair))) throw problem(404, 'not_found', `No curated answer "${id}" in knowledge base "${kbId}"`);
  response.json(toConsoleCuratedAnswer({ ...pair, id }, documents) satisfies ConsoleCuratedAnswer);
}

/** Removes a visible curated answer. */
async function removeCuratedAnswer(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  requireUpdatePermission(role, 'Removing a curated answer');
  const { pair } = await visiblePair(request, response, kbId, role, deps);
  await deps.store.removeFaqPair(kbId, pair.id);
  response.status(204).end();
}

/** The headings of one readable document, for choosing the passage a curated answer cites. */
async function listHeadings(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  const docId = typeof request.query.doc_id === 'string' ? request.query.doc_id : '';
  if (docId === '') throw problem(400, 'invalid_request', 'doc_id: give the id of a document');
  const passages = await deps.store.passagesOf(memberReach(kbId, signedInUser(response).id, role), docId);
  if (passages.length === 0) throw problem(404, 'not_found', `No document "${docId}" that you can read in knowledge base "${kbId}"`);
  const headings = [...new Set(passages.flatMap((passage) => passage.headingPath))];
  response.json({ doc_id: docId, headings } satisfies HeadingList);
}

/**
 * The curated answers of a knowledge base (`qa_shortcut`, docs/design-decisions.md
 * "The engine"): listed to members, added, edited and removed by editors and
 * owners. A curated answer is only ever shown to a person who can read
 * every document it cites - in the widget (answer-engine.ts) as here - so
 * the list leaves out the others and counts them, and one of those cannot
 * be edited or removed (404, as if absent). A source must be a document the
 * editor can read and, when a heading is given, a heading of it, so a
 * curated answer never cites what does not exist.
 */
export const CURATED_ANSWER_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/curated-answers',
    operation: {
      summary: 'The curated answers (`qa_shortcut`) the person can read, in the order they are matched; those citing a document the person cannot read are left out and counted',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: { '200': json(ref('CuratedAnswerList'), 'Curated answers'), ...consoleErrors },
    },
    handler: listCuratedAnswers,
  },
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/curated-answers',
    body: CuratedAnswerRequestSchema,
    operation: {
      summary: 'Add a curated answer (editors and owners): given as the answer to questions worded like its question, citing its sources',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: {
        '201': json(ref('CuratedAnswer'), 'Added'),
        '400': problemResponse('A source that is not a document the person can read, a heading not in its document, `[n]` markers that do not match the sources (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: addCuratedAnswer,
  },
  {
    method: 'put',
    path: '/knowledge-bases/:kbId/curated-answers/:answerId',
    body: CuratedAnswerRequestSchema,
    operation: {
      summary: "Replace a curated answer's question, answer and sources (editors and owners)",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, answerId],
      responses: {
        '200': json(ref('CuratedAnswer'), 'The curated answer as stored'),
        '400': problemResponse('As for adding one (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: replaceCuratedAnswer,
  },
  {
    method: 'delete',
    path: '/knowledge-bases/:kbId/curated-answers/:answerId',
    operation: {
      summary: 'Remove a curated answer (editors and owners)',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, answerId],
      responses: { '204': { description: 'Removed' }, ...consoleErrors },
    },
    handler: removeCuratedAnswer,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/headings',
    operation: {
      summary: 'The headings of one document the person can read, in document order: what a curated answer may cite',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, { name: 'doc_id', in: 'query', required: true, schema: { type: 'string' } }],
      responses: {
        '200': json(ref('HeadingList'), 'Headings'),
        '400': problemResponse('No `doc_id` (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: listHeadings,
  },
];


function toConsoleCuratedAnswer(pair: CuratedAnswer, documents: ReadonlyMap<string, DocumentRecord>): ConsoleCuratedAnswer {
  return {
    id: pair.id,
    question: pair.question,
    answer: pair.answer,
    sources: pair.sources.map((source) => ({
      doc_id: source.docId,
      ...(source.heading === undefined ? {} : { heading: source.heading }),
      title: documents.get(source.docId)?.title ?? source.docId,
    })),
  };
}
