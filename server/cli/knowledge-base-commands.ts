import { Option, type Command } from 'commander';
import { BaseUrlError, normalizeBaseUrl } from '../ingest/pipeline/page-url.ts';
import { updateSiteSettings } from '../ingest/site-settings.ts';
import { ANCHOR_STYLES, URL_STYLES, type AnchorStyle, type KnowledgeBase, type UrlStyle } from '../store/store.ts';
import { CliError, requireKnowledgeBase, requireUser, type CliContext } from './cli-context.ts';

/**
 * `--base-url`: an absolute http(s) URL, normalised to end in `/` (page-url.ts).
 *
 * @throws CliError naming the value otherwise
 */
function baseUrlOption(value: string): string {
  try {
    return normalizeBaseUrl(value);
  } catch (error) {
    if (error instanceof BaseUrlError) throw new CliError(error.message);
    throw error;
  }
}

/** One line about a knowledge base's site: "https://…/ (html pages, node anchors)" or "no site URL". */
function describeSite(knowledgeBase: KnowledgeBase): string {
  const conventions = `${knowledgeBase.urlStyle} pages, ${knowledgeBase.anchorStyle} anchors`;
  return knowledgeBase.baseUrl === undefined ? `no site URL (${conventions})` : `${knowledgeBase.baseUrl} (${conventions})`;
}

/** `kb knowledge-base create|update|list` (alias `kb`): knowledge bases and their sites. */
export function addKnowledgeBaseCommands(program: Command, context: CliContext): void {
  const { deps, withStore, print } = context;
  const knowledgeBase = program.command('knowledge-base').aliases(['kbs', 'kb']).description('Knowledge bases');
  const siteOptions = (command: Command): Command =>
    command
      .option('--base-url <url>', 'published URL of the ingested folder (https://kubernetes.io/docs/): documents get page URLs under it')
      .addOption(
        new Option('--url-style <style>', 'pretty: volumes.md -> volumes/ (Hugo, Docusaurus, MkDocs); html: fs.md -> fs.html (Node.js docs, Sphinx)').choices(
          URL_STYLES,
        ),
      )
      .addOption(
        new Option('--anchor-style <style>', 'heading ids: github (GitHub, Hugo, Docusaurus: repeats -1) or node (Node.js docs: repeats _1)').choices(
          ANCHOR_STYLES,
        ),
      );
  siteOptions(
    knowledgeBase
      .command('create')
      .argument('<id>', 'lower-case letters, digits and dashes')
      .option('--name <name>', 'display name')
      .option('--owner <email>', 'its first owner; default: the workspace owner'),
  ).action(
    withStore(
      async (
        store,
        id: string,
        options: { name?: string; owner?: string; baseUrl?: string; urlStyle?: UrlStyle; anchorStyle?: AnchorStyle },
      ) => {
        if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(id)) {
          throw new CliError(`Knowledge base id "${id}" must be lower-case letters, digits and dashes (at most 63)`);
        }
        if (await store.getKnowledgeBase(id)) throw new CliError(`Knowledge base "${id}" already exists`);
        const owner = await requireUser(store, options.owner ?? deps.ownerEmail);
        const created = await store.createKnowledgeBase({
          id,
          name: options.name ?? id,
          ...(options.baseUrl === undefined ? {} : { baseUrl: baseUrlOption(options.baseUrl) }),
          ...(options.urlStyle === undefined ? {} : { urlStyle: options.urlStyle }),
          ...(options.anchorStyle === undefined ? {} : { anchorStyle: options.anchorStyle }),
        });
        await store.setRole(id, owner.id, 'owner');
        print(`${id} created, owned by ${owner.email}; site: ${describeSite(created)}`);
      },
    ),
  );
  siteOptions(
    knowledgeBase
      .command('update')
      .description("Change a knowledge base's name or site; its documents' page URLs follow at once")
      .argument('<id>', 'knowledge base id')
      .option('--name <name>', 'display name'),
  )
    // After --base-url, so that leaving both out changes nothing (commander's rule for --no-* options).
    .option('--no-base-url', 'remove the site URL (documents keep only page URLs their front matter gives in full)')
    .action(
      withStore(
        async (
          store,
          id: string,
          options: { name?: string; baseUrl?: string | false; urlStyle?: UrlStyle; anchorStyle?: AnchorStyle },
        ) => {
          await requireKnowledgeBase(store, id);
          const update = await updateSiteSettings(store, id, {
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl === false ? null : baseUrlOption(options.baseUrl) }),
            ...(options.urlStyle === undefined ? {} : { urlStyle: options.urlStyle }),
            ...(options.anchorStyle === undefined ? {} : { anchorStyle: options.anchorStyle }),
          });
          print(`${id}: site ${describeSite(update.knowledgeBase)}; ${update.relinked} page URLs changed`);
          if (update.anchorsStale) {
            print(`Run "kb ingest" of ${id}'s folders again: its pages are re-parsed for the new heading anchors`);
          }
        },
      ),
    );
  knowledgeBase.command('list').action(
    withStore(async (store) => {
      for (const listed of await store.listKnowledgeBases()) {
        print(`${listed.id}\t${listed.name}\t${(await store.listDocuments(listed.id)).length} documents\t${describeSite(listed)}`);
      }
    }),
  );
}
