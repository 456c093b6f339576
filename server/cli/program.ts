import { Command } from 'commander';
import { createCliContext, type CliDeps } from './cli-context.ts';
import { addAskCommand } from './ask-command.ts';
import { addDocCommands } from './doc-commands.ts';
import { addFaqCommands } from './faq-commands.ts';
import { addIngestCommand } from './ingest-command.ts';
import { addKnowledgeBaseCommands } from './knowledge-base-commands.ts';
import { addMemberCommands } from './member-commands.ts';
import { addTokenCommands } from './token-commands.ts';
import { addUserCommands } from './user-commands.ts';

export { CliError, type CliDeps } from './cli-context.ts';

/**
 * Builds the `kb` command line (docs/cli.md). Each action opens
 * the store, does its work and closes it.
 */
export function createCli(deps: CliDeps): Command {
  const program = new Command('kb')
    .description('Manage kb-widget knowledge bases, documents and widget tokens')
    .showHelpAfterError()
    .configureOutput({ writeOut: deps.stdout, writeErr: deps.stderr });
  const context = createCliContext(deps);
  const { withStore, print } = context;
  addIngestCommand(program, context);
  addFaqCommands(program, context);
  addTokenCommands(program, context);
  addUserCommands(program, context);
  addKnowledgeBaseCommands(program, context);
  addMemberCommands(program, context);
  addDocCommands(program, context);
  addAskCommand(program, context);

  program.command('migrate').description('Create or upgrade the database schema').action(
    withStore(async (store) => {
      // Every store migrates when opened (PostgreSQL: on its first call, which this is).
      await store.ping();
      print('schema is up to date');
    }),
  );

  return program;
}
