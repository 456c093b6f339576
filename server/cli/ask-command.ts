import type { Command } from 'commander';
import { collectAnswer } from '../engine/answer-events.ts';
import { createLexicalRetriever } from '../retrieval/lexical-retriever.ts';
import { createAnswerEngine } from '../engine/answer-engine.ts';
import { memberReach } from '../access/access-rules.ts';
import { requireKnowledgeBase, requireUser, type CliContext } from './cli-context.ts';

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
        const engine = createAnswerEngine({ store, retriever: createLexicalRetriever(store), abstentionThreshold: deps.abstentionThreshold });
        const answer = await collectAnswer(
          engine.answer({ question, reach: memberReach(options.kb, asker.id, role) }),
        );
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
