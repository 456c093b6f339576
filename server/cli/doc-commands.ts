import { Option, type Command } from 'commander';
import { VISIBILITIES, type Visibility } from '../store/store.ts';
import { CliError, requireKnowledgeBase, requireReaders, type CliContext } from './cli-context.ts';

/** `kb doc list|set|remove`: the documents of a knowledge base and their access. */
export function addDocCommands(program: Command, context: CliContext): void {
  const { withStore, print } = context;
  const doc = program.command('doc').description('Documents of a knowledge base');
  doc
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        await requireKnowledgeBase(store, options.kb);
        for (const listed of await store.listDocuments(options.kb)) {
          print(`${listed.docId}\t${listed.visibility}${listed.quotable ? '' : ' (not quotable)'}\t${listed.chunkCount} passages\t${listed.title}`);
        }
      }),
    );
  doc
    .command('set')
    .description('Change who may read a document')
    .argument('<doc-id>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .addOption(new Option('--visibility <visibility>').choices(VISIBILITIES).makeOptionMandatory())
    .option('--reader <email...>', 'readers when restricted', [])
    .option('--not-quotable', 'never quote it in citations')
    .action(
      withStore(async (store, docId: string, options: { kb: string; visibility: Visibility; reader: string[]; notQuotable?: boolean }) => {
        const readers = await requireReaders(store, options.kb, options.reader);
        if (!(await store.getDocument(options.kb, docId))) throw new CliError(`No document "${docId}" in "${options.kb}"`);
        await store.setDocumentAccess(options.kb, docId, {
          visibility: options.visibility,
          readers: readers.map((reader) => reader.id),
          quotable: !options.notQuotable,
        });
        print(`${docId} is ${options.visibility}`);
      }),
    );
  doc
    .command('remove')
    .argument('<doc-id>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, docId: string, options: { kb: string }) => {
        if (!(await store.removeDocument(options.kb, docId))) throw new CliError(`No document "${docId}" in "${options.kb}"`);
        print(`${docId} removed`);
      }),
    );
}
