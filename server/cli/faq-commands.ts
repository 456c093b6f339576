import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseFaqFile } from '../ingest/faq-file.ts';
import { CliError, requireKnowledgeBase, type CliContext } from './cli-context.ts';

/** `kb faq import|list`: the curated question/answer pairs (qa_shortcut) of a knowledge base. */
export function addFaqCommands(program: Command, context: CliContext): void {
  const { withStore, print } = context;
  const faq = program.command('faq').description('Curated question/answer pairs (qa_shortcut)');
  faq
    .command('import')
    .description('Replace the curated pairs of a knowledge base with those of a JSON or YAML file')
    .argument('<file>', 'JSON or YAML file of pairs')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, file: string, options: { kb: string }) => {
        await requireKnowledgeBase(store, options.kb);
        const text = await readFile(file, 'utf8').catch(() => {
          throw new CliError(`Cannot read "${file}"`);
        });
        let pairs;
        try {
          pairs = parseFaqFile(text, file);
        } catch (error) {
          throw new CliError((error as Error).message);
        }
        for (const [position, pair] of pairs.entries()) {
          for (const source of pair.sources) {
            if (!(await store.getDocument(options.kb, source.docId))) {
              throw new CliError(`Pair ${position + 1} cites "${source.docId}", which is not in knowledge base "${options.kb}"`);
            }
          }
        }
        await store.replaceFaq(options.kb, pairs);
        print(`${options.kb}: ${pairs.length} curated pairs imported`);
      }),
    );
  faq
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        for (const pair of await store.listFaq(options.kb)) print(`${pair.question}\n  ${pair.answer}`);
      }),
    );
}
