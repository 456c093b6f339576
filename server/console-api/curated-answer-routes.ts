import { Router, type Request, type Response } from 'express';
import {
  CuratedAnswerRequestSchema,
  type CuratedAnswer as ConsoleCuratedAnswer,
  type CuratedAnswerList,
  type HeadingList,
} from '../../protocol/console-protocol.ts';
import { memberReach } from '../access/access-rules.ts';
import { problem } from '../http/problem.ts';
import { CitationMarkerError, withCitationMarkers } from '../ingest/curated-answer-text.ts';
import type { CuratedAnswer, DocumentRecord, FaqPair, Role } from '../store/store.ts';
import { membership, parseBody, readableDocuments, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';

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
export function curatedAnswerRoutes(deps: ConsoleRouteDeps): Router {
  const { store } = deps;
  const router = Router();

  /** The knowledge base's documents the signed-in person can read, by id. */
  const readableBy = (kbId: string, role: Role, response: Response) => readableDocuments(store, kbId, signedInUser(response).id, role);

  /** A stored pair the person can see, with the documents they can read; or a 404 problem. */
  async function visiblePair(
    request: Request,
    response: Response,
    kbId: string,
    role: Role,
  ): Promise<{ pair: CuratedAnswer; documents: Map<string, DocumentRecord> }> {
    const id = Number(request.params.answerId);
    const documents = await readableBy(kbId, role, response);
    const pair = Number.isSafeInteger(id) ? (await store.listFaq(kbId)).find((candidate) => candidate.id === id) : undefined;
    if (!pair || !pair.sources.every((source) => documents.has(source.docId))) {
      throw problem(404, 'not_found', `No curated answer "${String(request.params.answerId)}" in knowledge base "${kbId}"`);
    }
    return { pair, documents };
  }

  /** The request's pair, its sources checked against what the editor can read and its markers against its sources. */
  async function pairFrom(request: Request, response: Response, kbId: string, role: Role): Promise<FaqPair> {
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

  router.get('/knowledge-bases/:kbId/curated-answers', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    const documents = await readableBy(kbId, role, response);
    const pairs = await store.listFaq(kbId);
    const visible = pairs.filter((pair) => pair.sources.every((source) => documents.has(source.docId)));
    response.json({
      curated_answers: visible.map((pair) => toConsoleCuratedAnswer(pair, documents)),
      hidden: pairs.length - visible.length,
    } satisfies CuratedAnswerList);
  });

  router.post('/knowledge-bases/:kbId/curated-answers', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Adding a curated answer');
    const added = await store.addFaqPair(kbId, await pairFrom(request, response, kbId, role));
    response.status(201).json(toConsoleCuratedAnswer(added, await readableBy(kbId, role, response)) satisfies ConsoleCuratedAnswer);
  });

  router.put('/knowledge-bases/:kbId/curated-answers/:answerId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Editing a curated answer');
    const {
      pair: { id },
      documents,
    } = await visiblePair(request, response, kbId, role);
    const pair = await pairFrom(request, response, kbId, role);
    if (!(await store.updateFaqPair(kbId, id, pair))) throw problem(404, 'not_found', `No curated answer "${id}" in knowledge base "${kbId}"`);
    response.json(toConsoleCuratedAnswer({ ...pair, id }, documents) satisfies ConsoleCuratedAnswer);
  });

  router.delete('/knowledge-bases/:kbId/curated-answers/:answerId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Removing a curated answer');
    const { pair } = await visiblePair(request, response, kbId, role);
    await store.removeFaqPair(kbId, pair.id);
    response.status(204).end();
  });

  /** The headings of one readable document, for choosing the passage a curated answer cites. */
  router.get('/knowledge-bases/:kbId/headings', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    const docId = typeof request.query.doc_id === 'string' ? request.query.doc_id : '';
    if (docId === '') throw problem(400, 'invalid_request', 'doc_id: give the id of a document');
    const passages = await store.passagesOf(memberReach(kbId, signedInUser(response).id, role), docId);
    if (passages.length === 0) throw problem(404, 'not_found', `No document "${docId}" that you can read in knowledge base "${kbId}"`);
    const headings = [...new Set(passages.flatMap((passage) => passage.headingPath))];
    response.json({ doc_id: docId, headings } satisfies HeadingList);
  });

  return router;
}

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
