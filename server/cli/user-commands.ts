import type { Command } from 'commander';
import { hashPassword, passwordPolicyProblem } from '../auth/password-hash.ts';
import { readSecret } from './read-secret.ts';
import { CliError, requireUser, type CliContext } from './cli-context.ts';

/** `kb user add|list|password|remove`: workspace users and their console passwords. */
export function addUserCommands(program: Command, context: CliContext): void {
  const { deps, withStore, print } = context;
  const user = program.command('user').description('Workspace users');
  user
    .command('add')
    .argument('<email>')
    .option('--name <name>', 'display name')
    .action(
      withStore(async (store, email: string, options: { name?: string }) => {
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new CliError(`"${email}" is not an email address`);
        if (await store.findUserByEmail(email)) throw new CliError(`A user with email "${email}" already exists`);
        const created = await store.createUser({ email, name: options.name ?? email.split('@')[0]! });
        print(`${created.email} added (${created.id})`);
      }),
    );
  user.command('list').action(
    withStore(async (store) => {
      for (const listed of await store.listUsers()) print(`${listed.email}\t${listed.name}\t${listed.id}`);
    }),
  );
  user
    .command('password')
    .description("Set a user's console password and end their sessions; the password is read from stdin, never echoed")
    .argument('<email>')
    .option('--password <password>', 'the new password instead of stdin (visible in process lists and shell history)')
    .action(
      withStore(async (store, email: string, options: { password?: string }) => {
        const found = await requireUser(store, email);
        let password = options.password;
        if (password === undefined) {
          try {
            password = await (deps.readSecret ?? readSecret)(`New password for ${found.email}: `);
          } catch (error) {
            throw new CliError((error as Error).message);
          }
        }
        const policyProblem = passwordPolicyProblem(password);
        if (policyProblem !== undefined) throw new CliError(policyProblem);
        await store.setPasswordHash(found.id, await hashPassword(password));
        const ended = await store.deleteSessionsOf(found.id);
        print(`${found.email}: password set; ${ended === 1 ? '1 session' : `${ended} sessions`} ended`);
      }),
    );
  user
    .command('remove')
    .argument('<email>')
    .action(
      withStore(async (store, email: string) => {
        const found = await requireUser(store, email);
        await store.removeUser(found.id);
        print(`${found.email} removed; tokens they issued no longer work`);
      }),
    );
}
