import type { Command } from 'commander';
import { requireKnowledgeBase, requireUser, type AnswerEmbeddingLookup, type CliContext } from './cli-context.ts';
import { memberReach } from '../access/access-rules.ts';
import { modelKey } from '../embedding/model-manifest.ts';
import { createAnswerEngine } from '../engine/answer-engine.ts';
import { collectAnswer } from '../engine/answer-events.ts';
import { createAnswerRetriever } from '../retrieval/answer-retriever.ts';
import type { Store } from '../store/store.ts';

/** `kb ask`: a question through the engine, without HTTP. */
export function addAskCommand(program: Command, context: CliContext): void {
  const { deps, withStore, print } = context;
  program
    .command('ask')
    .description('Ask a question with the reach of a workspace user (default: the owner)')
    .argument('<question>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .option('--as <email>', 'whose reach to use')
    .option('--json', 'print the answer as the JSON endpoint would, with the evidence of each citation')
    .action(
      withStore(async (store, question: string, options: { kb: string; as?: string; json?: boolean }) => {
        await requireKnowledgeBase(store, options.kb);
        const asker = await requireUser(store, options.as ?? deps.ownerEmail);
        const role = await store.getRole(options.kb, asker.id);
        const found = (await deps.answerEmbedding?.()) ?? { reason: 'no embedding model is configured' };
        const answering = await createAnswerRetriever(store, 'embedding' in found ? { embedding: found.embedding } : {});
        let answer;
        try {
          deps.stderr(`retrieval: ${await retrievalLine(store, options.kb, found)}\n`);
          const engine = createAnswerEngine({ store, retriever: answering.retriever, abstentionThreshold: deps.abstentionThreshold });
          answer = await collectAnswer(engine.answer({ question, reach: memberReach(options.kb, asker.id, role) }));
        } finally {
          await answering.release();
        }
        if (options.json) {
          const citations = answer.citations.map((citation) => ({
            index: citation.index,
            doc_id: citation.passage.docId,
            heading_path: citation.passage.headingPath,
          }));
          print(JSON.stringify({ ...answer, citations }, null, 2));
          return;
        }
        print(answer.answer);
        for (const citation of answer.citations) {
          print(`[${citation.index}] ${citation.passage.docId} > ${citation.passage.headingPath.join(' > ')}`);
        }
        if (answer.suggestions.length > 0) print(`\nYou could also ask:\n${answer.suggestions.map((entry) => `  ${entry}`).join('\n')}`);
      }),
    );
}

/**
 * What `kb ask` says of its retrieval, on standard error: hybrid when the
 * embedding model is there and every passage of the knowledge base has its
 * vector (else dense retrieval stays out, retrieval/dense-retriever.ts),
 * BM25F alone otherwise, and why.
 */
async function retrievalLine(store: Store, kbId: string, found: AnswerEmbeddingLookup): Promise<string> {
  if (!('embedding' in found)) return `BM25F alone: ${found.reason}`;
  const { model } = found.embedding;
  const waiting = await store.countPassagesWithoutVector(modelKey(model), kbId);
  if (waiting > 0) return `BM25F alone: ${waiting} passages have no vector yet (a running server embeds them in the background)`;
  return `hybrid (BM25F and dense retrieval with ${model.id})`;
}
