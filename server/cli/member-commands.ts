import { Option, type Command } from 'commander';
import { ROLES, type Role } from '../store/store.ts';
import { requireKnowledgeBase, requireUser, type CliContext } from './cli-context.ts';

/** `kb member set|remove|list`: roles on a knowledge base. */
export function addMemberCommands(program: Command, context: CliContext): void {
  const { withStore, print } = context;
  const member = program.command('member').description('Roles on a knowledge base');
  member
    .command('set')
    .argument('<email>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .addOption(new Option('--role <role>', 'role').choices(ROLES).makeOptionMandatory())
    .action(
      withStore(async (store, email: string, options: { kb: string; role: Role }) => {
        await requireKnowledgeBase(store, options.kb);
        const found = await requireUser(store, email);
        await store.setRole(options.kb, found.id, options.role);
        print(`${found.email} is ${options.role} of ${options.kb}`);
      }),
    );
  member
    .command('remove')
    .argument('<email>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, email: string, options: { kb: string }) => {
        const found = await requireUser(store, email);
        await store.removeRole(options.kb, found.id);
        print(`${found.email} is no longer a member of ${options.kb}`);
      }),
    );
  member
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        for (const listed of await store.listMembers(options.kb)) print(`${listed.email}\t${listed.role}`);
      }),
    );
}
