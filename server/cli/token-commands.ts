import { Option, type Command } from 'commander';
import { issueToken } from '../auth/widget-tokens.ts';
import { VISIBILITIES, type Visibility } from '../store/store.ts';
import { CliError, positiveInteger, requireKnowledgeBase, requireUser, type CliContext } from './cli-context.ts';

/** `kb token issue|list|revoke`: widget tokens. */
export function addTokenCommands(program: Command, context: CliContext): void {
  const { deps, withStore, print } = context;
  const token = program.command('token').description('Widget tokens');
  token
    .command('issue')
    .description('Issue a widget token; the token is the last line of the output')
    .requiredOption('--kb <id>', 'knowledge base id')
    .option('--origin <origin...>', 'allowed site origins (https://shop.example.com, https://*.example.com)', [])
    .option('--ttl-minutes <minutes>', 'lifetime in minutes (default 60, never above the platform cap)', positiveInteger)
    .addOption(new Option('--scope <visibility...>', 'visibilities the token may reach').choices(VISIBILITIES).default(['public']))
    .option('--as <email>', 'issuer (needs editor or owner role); default: the workspace owner')
    .action(
      withStore(
        async (store, options: { kb: string; origin: string[]; ttlMinutes?: number; scope: Visibility[]; as?: string }) => {
          await requireKnowledgeBase(store, options.kb);
          const issuer = await requireUser(store, options.as ?? deps.ownerEmail);
          try {
            const issued = await issueToken(
              store,
              {
                kbId: options.kb,
                issuerId: issuer.id,
                allowedOrigins: options.origin,
                scope: options.scope,
                ...(options.ttlMinutes === undefined ? {} : { ttlMinutes: options.ttlMinutes }),
              },
              { ttlCapMinutes: deps.tokenTtlCapMinutes, now: deps.now() },
            );
            deps.stderr(
              `Issued ${issued.record.id} for ${options.kb} by ${issuer.email}, expires ${new Date(issued.record.expiresAt).toISOString()}, ` +
                `origins: ${issued.record.allowedOrigins.join(' ') || '(server only)'}\n`,
            );
            print(issued.token);
          } catch (error) {
            throw new CliError((error as Error).message);
          }
        },
      ),
    );
  token
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        await requireKnowledgeBase(store, options.kb);
        const now = deps.now();
        const users = new Map((await store.listUsers()).map((user) => [user.id, user.email]));
        print(['id', 'status', 'purpose', 'issuer', 'created', 'expires', 'last used', 'scope', 'origins'].join('\t'));
        const newestFirst = (await store.listTokens(options.kb)).sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
        for (const record of newestFirst) {
          const status = record.revokedAt !== undefined ? 'revoked' : now >= record.expiresAt ? 'expired' : 'active';
          print(
            [
              record.id,
              status,
              record.purpose,
              (record.issuerId && users.get(record.issuerId)) ?? '(removed user)',
              new Date(record.createdAt).toISOString(),
              new Date(record.expiresAt).toISOString(),
              record.lastUsedAt === undefined ? '-' : new Date(record.lastUsedAt).toISOString(),
              record.scope.join(','),
              record.allowedOrigins.join(' ') || '(server only)',
            ].join('\t'),
          );
        }
      }),
    );
  token
    .command('revoke')
    .argument('<token-id>', 'the tok_... id shown by token issue and token list')
    .action(
      withStore(async (store, id: string) => {
        if (!(await store.revokeToken(id, deps.now()))) throw new CliError(`No token with id "${id}"`);
        print(`${id} revoked`);
      }),
    );
}
