import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CliError, createCli, type CliDeps } from './program.ts';
import { verifyPassword } from '../auth/password-hash.ts';
import { openStore, type StoreLocation } from '../store/open-store.ts';
import { createTestStoreLocation } from '../testing/test-store.ts';
import { docsPage, serveTestSite } from '../testing/test-site.ts';
import type { Store } from '../store/store.ts';

let folder: string;
let location: StoreLocation;
let dispose: () => Promise<void>;
let stdout: string;
let stderr: string;
let clock: number;
/** What the fake terminal answers when a command reads a secret; undefined = it fails the test. */
let secretInput: string | undefined;
let secretPrompts: string[];

/** Runs one CLI command against the test's store; the store is opened and closed per command, as in real use. */
async function run(...args: string[]): Promise<void> {
  await runWith({}, ...args);
}

/** {@link run} with some of the CLI's dependencies replaced (settings from the environment). */
async function runWith(deps: Partial<CliDeps>, ...args: string[]): Promise<void> {
  const program = createCli({
    openStore: () => openStore(location, () => clock),
    tokenTtlCapMinutes: 120,
    ownerEmail: 'owner@example.com',
    abstentionThreshold: 0.5,
    now: () => clock,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readSecret: async (prompt) => {
      secretPrompts.push(prompt);
      if (secretInput === undefined) throw new Error('No password on standard input');
      return secretInput;
    },
    ...deps,
  });
  program.exitOverride();
  await program.parseAsync(['node', 'kb', ...args]);
}

/** Runs `work` on a store of the test's database, closed afterwards. */
async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(location, () => clock);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-cli-test-'));
  ({ location, dispose } = await createTestStoreLocation(folder));
  stdout = '';
  stderr = '';
  clock = Date.UTC(2026, 0, 1);
  secretInput = undefined;
  secretPrompts = [];
  await run('user', 'add', 'owner@example.com');
  await run('user', 'add', 'reader@example.com');
  await run('knowledge-base', 'create', 'help');
  await run('member', 'set', 'reader@example.com', '--kb', 'help', '--role', 'reader');
  stdout = '';
});
afterEach(async () => {
  // `kb ingest` sets the exit status of the process the CLI runs in; the test runner's must stay clean.
  process.exitCode = undefined;
  await dispose();
  await rm(folder, { recursive: true, force: true });
});

describe('kb token', () => {
  test('issue: prints the token as the last line of stdout, valid for 60 minutes by default', async () => {
    await run('token', 'issue', '--kb', 'help', '--origin', 'https://shop.example.com', 'http://localhost:5173');

    const lastLine = stdout.trim().split('\n').at(-1)!;
    expect(lastLine).toMatch(/^kbw_[\w-]{43}$/);
    stdout = '';
    await run('token', 'list', '--kb', 'help');
    expect(stdout).toContain(new Date(clock + 60 * 60_000).toISOString());
    expect(stdout).toContain('https://shop.example.com http://localhost:5173');
    expect(stdout).toContain('active');
  });

  test('issue with a shorter lifetime: honoured', async () => {
    await run('token', 'issue', '--kb', 'help', '--ttl-minutes', '5');
    stdout = '';

    await run('token', 'list', '--kb', 'help');

    expect(stdout).toContain(new Date(clock + 5 * 60_000).toISOString());
  });

  test('issue with a lifetime above the cap: refused, nothing issued', async () => {
    await expect(run('token', 'issue', '--kb', 'help', '--ttl-minutes', '121')).rejects.toThrow(
      new CliError('Token lifetime of 121 minutes exceeds the platform cap of 120 minutes'),
    );
    stdout = '';
    await run('token', 'list', '--kb', 'help');
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });

  test('issue as a reader: refused for lack of update permission', async () => {
    await expect(run('token', 'issue', '--kb', 'help', '--as', 'reader@example.com')).rejects.toThrow(/update permission/);
  });

  test('issue with a malformed origin: refused naming the origin', async () => {
    await expect(run('token', 'issue', '--kb', 'help', '--origin', 'shop.example.com/path')).rejects.toThrow(
      /"shop\.example\.com\/path"/,
    );
  });

  test('list: newest first, each with its purpose and creation time', async () => {
    await run('token', 'issue', '--kb', 'help', '--origin', 'https://old.example.com');
    clock += 60_000;
    await run('token', 'issue', '--kb', 'help', '--origin', 'https://new.example.com');
    stdout = '';

    await run('token', 'list', '--kb', 'help');

    const [header, ...rows] = stdout.trim().split('\n');
    expect(header).toBe('id\tstatus\tpurpose\tissuer\tcreated\texpires\tlast used\tscope\torigins');
    expect(rows.map((row) => row.split('\t').filter((_, column) => [2, 4, 8].includes(column)))).toEqual([
      ['embed', new Date(clock).toISOString(), 'https://new.example.com'],
      ['embed', new Date(clock - 60_000).toISOString(), 'https://old.example.com'],
    ]);
  });

  test('revoke: the token is listed as revoked', async () => {
    await run('token', 'issue', '--kb', 'help');
    const id = /Issued (tok_\S+)/.exec(stderr)![1]!;

    await run('token', 'revoke', id);
    stdout = '';
    await run('token', 'list', '--kb', 'help');

    expect(stdout).toMatch(new RegExp(`${id}\\trevoked`));
  });
});

describe('kb ingest and faq import', () => {
  test('ingest twice: the second run changes nothing', async () => {
    const sources = join(folder, 'sources');
    await mkdtemp(sources).catch(() => undefined);
    await writeFile(join(folder, 'page.md'), '# Page\n\n## Setup\n\nInstall the package with npm and run the setup command.\n');

    await run('ingest', join(folder, 'page.md'), '--kb', 'help');
    expect(stdout).toContain('help: 1 created, 0 updated, 0 unchanged, 0 removed, 0 skipped, 0 failed');
    stdout = '';
    await run('ingest', join(folder, 'page.md'), '--kb', 'help');

    expect(stdout).toContain('help: 0 created, 0 updated, 1 unchanged, 0 removed, 0 skipped, 0 failed');
  });

  test('ingest of pages without text (front matter only): warnings, exit status 0', async () => {
    // Arrange
    const sources = join(folder, 'docs');
    await mkdir(join(sources, 'storage'), { recursive: true });
    await writeFile(join(sources, 'storage', '_index.md'), '---\ntitle: Storage\nweight: 70\n---\n');
    await writeFile(join(sources, 'storage', 'volumes.md'), '---\ntitle: Volumes\n---\nVolumes hold data for Pods.\n');

    // Act
    await run('ingest', sources, '--kb', 'help');

    // Assert
    expect(stdout).toContain('help: 1 created, 0 updated, 0 unchanged, 0 removed, 1 skipped, 0 failed');
    expect(stderr).toBe(`warning: skipped ${join(sources, 'storage', '_index.md')}: The file has no text to index\n`);
    expect(process.exitCode ?? 0).toBe(0);
  });

  test('ingest of a page whose front matter does not parse: reported as failed, exit status 1', async () => {
    // Arrange
    const sources = join(folder, 'docs');
    await mkdir(sources, { recursive: true });
    await writeFile(join(sources, 'bad.md'), '---\ntitle: "unclosed\n---\nText.\n');
    await writeFile(join(sources, 'good.md'), '# Good\n\nText of a good page.\n');

    // Act
    await run('ingest', sources, '--kb', 'help');

    // Assert
    expect(stdout).toContain('help: 1 created, 0 updated, 0 unchanged, 0 removed, 0 skipped, 1 failed');
    expect(stderr).toMatch(/^failed .*bad\.md: The YAML front matter does not parse \(line \d+\)/);
    expect(process.exitCode).toBe(1);
  });

  test('ingest restricted to a reader who is a user but not a member: refused naming them, nothing ingested (as the console refuses)', async () => {
    // Arrange
    await run('user', 'add', 'stranger@example.com');
    await writeFile(join(folder, 'plan.md'), '# Plan\n\nThe plan for next quarter.\n');

    // Act
    const ingesting = run('ingest', join(folder, 'plan.md'), '--kb', 'help', '--visibility', 'restricted', '--reader', 'reader@example.com', 'stranger@example.com');

    // Assert
    await expect(ingesting).rejects.toThrow(new CliError('Readers must be members of "help" (kb member set <email> --kb help --role reader): not members: stranger@example.com'));
    expect(await withStore((store) => store.listDocuments('help'))).toEqual([]);
  });

  test('ingest restricted to a member: their document, readable by them only', async () => {
    // Arrange
    await writeFile(join(folder, 'plan.md'), '# Plan\n\nThe plan for next quarter.\n');

    // Act
    await run('ingest', join(folder, 'plan.md'), '--kb', 'help', '--visibility', 'restricted', '--reader', 'reader@example.com');

    // Assert
    const [document] = await withStore((store) => store.listDocuments('help'));
    const reader = await withStore((store) => store.findUserByEmail('reader@example.com'));
    expect(document).toMatchObject({ docId: 'plan.md', visibility: 'restricted', readers: [reader!.id] });
  });

  test('doc set restricted to a non-member: refused, the document keeps its access', async () => {
    // Arrange
    await run('user', 'add', 'stranger@example.com');
    await writeFile(join(folder, 'plan.md'), '# Plan\n\nThe plan for next quarter.\n');
    await run('ingest', join(folder, 'plan.md'), '--kb', 'help');

    // Act
    const setting = run('doc', 'set', 'plan.md', '--kb', 'help', '--visibility', 'restricted', '--reader', 'stranger@example.com');

    // Assert
    await expect(setting).rejects.toThrow(/not members: stranger@example\.com/);
    expect(await withStore((store) => store.getDocument('help', 'plan.md'))).toMatchObject({ visibility: 'public', readers: [] });
  });

  test('faq import from YAML: pairs answer as qa_shortcut through ask', async () => {
    await writeFile(join(folder, 'page.md'), '# Page\n\n## Setup\n\nInstall the package with npm and run the setup command.\n');
    await run('ingest', join(folder, 'page.md'), '--kb', 'help');
    await writeFile(
      join(folder, 'faq.yaml'),
      'pairs:\n  - question: How do I install it?\n    answer: Run npm install.\n    sources:\n      - doc_id: page.md\n',
    );

    await run('faq', 'import', join(folder, 'faq.yaml'), '--kb', 'help');
    stdout = '';
    await run('ask', 'How do I install it?', '--kb', 'help', '--json');

    expect(JSON.parse(stdout)).toMatchObject({ answer: 'Run npm install. [1]', provenance: 'qa_shortcut' });
  });

  test('faq import citing a document not in the knowledge base: refused', async () => {
    await writeFile(join(folder, 'faq.json'), JSON.stringify([{ question: 'Q?', answer: 'A.', sources: [{ doc_id: 'nope.md' }] }]));

    await expect(run('faq', 'import', join(folder, 'faq.json'), '--kb', 'help')).rejects.toThrow(/"nope\.md"/);
  });
});

describe('kb ingest --url / --sitemap', () => {
  test('a site on loopback: refused without the setting (nothing stored); with --allow-private-addresses its pages imported under their URLs', async () => {
    const site = await serveTestSite({
      '/docs/': { type: 'text/html', body: docsPage('Overview', '<p>Quokkas sleep by day.</p>', '<a href="/docs/feeding">Feeding</a>') },
      '/docs/feeding': { type: 'text/html', body: docsPage('Feeding', '<p>Quokkas eat leaves at night.</p>') },
    });
    const host = new URL(site.origin).host;
    try {
      const refused = run('ingest', '--kb', 'help', '--url', `${site.origin}/docs/`);
      await expect(refused).rejects.toThrow(/127\.0\.0\.1, a loopback address: refused.*or pass --allow-private-addresses/);
      expect(site.requested).toEqual([]);

      await run('ingest', '--kb', 'help', '--url', `${site.origin}/docs/`, '--allow-private-addresses');

      expect(stdout).toContain(`help: ${site.origin}: 2 created, 0 updated, 0 unchanged, 0 removed, 0 skipped, 0 failed`);
      const documents = await withStore((store) => store.listDocuments('help'));
      expect(documents.map((document) => [document.docId, document.url])).toEqual([
        [`${host}/docs/feeding.html`, `${site.origin}/docs/feeding`],
        [`${host}/docs/index.html`, `${site.origin}/docs/`],
      ]);
    } finally {
      await site.close();
    }
  });

  test('a sitemap with the addresses allowed by the environment setting, --max-pages 1: one page, a warning that a limit stopped it', async () => {
    const site = await serveTestSite({
      '/a': { type: 'text/html', body: docsPage('A', '<p>Alpha.</p>') },
      '/b': { type: 'text/html', body: docsPage('B', '<p>Beta.</p>') },
    });
    site.resources.set('/sitemap.xml', { type: 'application/xml', body: `<urlset><url><loc>${site.origin}/a</loc></url><url><loc>${site.origin}/b</loc></url></urlset>` });
    try {
      await runWith({ importAllowPrivateAddresses: ['127.0.0.1'] }, 'ingest', '--kb', 'help', '--sitemap', `${site.origin}/sitemap.xml`, '--max-pages', '1');

      expect(stdout).toContain('1 created');
      expect(stderr).toContain('warning: stopped at a limit (--max-pages 1)');
    } finally {
      await site.close();
    }
  });

  test('files and --url together, or neither: refused saying to give one', async () => {
    await expect(run('ingest', '--kb', 'help')).rejects.toThrow('Give files or folders, --url or --sitemap: one of them');
    await expect(run('ingest', 'docs', '--kb', 'help', '--url', 'https://example.com/')).rejects.toThrow('one of them');
  });
});

describe('kb knowledge-base site', () => {
  test('create with --base-url, --url-style html and --anchor-style node: documents get .html page URLs', async () => {
    // Arrange
    await run('kb', 'create', 'node', '--base-url', 'https://nodejs.org/docs/latest-v18.x/api', '--url-style', 'html', '--anchor-style', 'node');
    await writeFile(join(folder, 'fs.md'), '# File system\n\n## `fs.stat(path[, options], callback)`\n\nReturns file stats.\n');

    // Act
    await run('ingest', join(folder, 'fs.md'), '--kb', 'node');

    // Assert
    expect(stdout).toContain('node created, owned by owner@example.com; site: https://nodejs.org/docs/latest-v18.x/api/ (html pages, node anchors)');
    const document = await withStore((store) => store.getDocument('node', 'fs.md'));
    expect(document?.url).toBe('https://nodejs.org/docs/latest-v18.x/api/fs.html');
  });

  test('update --base-url and --url-style: the stored page URLs follow at once, without re-ingest', async () => {
    // Arrange
    await writeFile(join(folder, 'volumes.md'), '---\nslug: vols\n---\nVolumes hold data for Pods.\n');
    await run('ingest', join(folder, 'volumes.md'), '--kb', 'help');
    stdout = '';

    // Act
    await run('kb', 'update', 'help', '--base-url', 'https://docs.example.com/guide/');
    const pretty = (await withStore((store) => store.getDocument('help', 'volumes.md')))?.url;
    await run('kb', 'update', 'help', '--url-style', 'html');
    const html = (await withStore((store) => store.getDocument('help', 'volumes.md')))?.url;
    await run('kb', 'update', 'help', '--no-base-url');
    const none = (await withStore((store) => store.getDocument('help', 'volumes.md')))?.url;

    // Assert
    expect(stdout).toContain('help: site https://docs.example.com/guide/ (pretty pages, github anchors); 1 page URLs changed');
    expect([pretty, html, none]).toEqual(['https://docs.example.com/guide/vols/', 'https://docs.example.com/guide/vols.html', undefined]);
  });

  test('update --anchor-style: says that pages must be ingested again', async () => {
    await run('kb', 'update', 'help', '--anchor-style', 'node');

    expect(stdout).toContain('Run "kb ingest" of help\'s folders again');
  });

  test('create with a base URL that is not http(s): refused naming it, nothing created', async () => {
    await expect(run('kb', 'create', 'site', '--base-url', 'ftp://example.com/')).rejects.toThrow(/Base URL "ftp:\/\/example\.com\/" must use http or https/);
    await expect(withStore((store) => store.getKnowledgeBase('site'))).resolves.toBeUndefined();
  });
});

describe('kb user password', () => {
  test('password read from stdin: set (verifiable), prompt names the user, the password never printed', async () => {
    // Arrange
    secretInput = 'a brand new password';

    // Act
    await run('user', 'password', 'reader@example.com');

    // Assert
    expect(secretPrompts).toEqual(['New password for reader@example.com: ']);
    expect(stdout).toBe('reader@example.com: password set; 0 sessions ended\n');
    expect(stdout + stderr).not.toContain('a brand new password');
    const hash = await withStore(async (store) => store.getPasswordHash((await store.findUserByEmail('reader@example.com'))!.id));
    await expect(verifyPassword('a brand new password', hash!)).resolves.toBe(true);
  });

  test('--password given: used, stdin not read; the user is signed out everywhere', async () => {
    // Arrange
    await withStore(async (store) => {
      const user = (await store.findUserByEmail('reader@example.com'))!;
      for (const idHash of ['a'.repeat(64), 'b'.repeat(64)]) {
        await store.createSession({ idHash, userId: user.id, createdAt: clock, expiresAt: clock + 3_600_000, lastSeenAt: clock });
      }
    });

    // Act
    await run('user', 'password', 'reader@example.com', '--password', 'an option password');

    // Assert
    expect(secretPrompts).toEqual([]);
    expect(stdout).toBe('reader@example.com: password set; 2 sessions ended\n');
    await expect(withStore((store) => store.findSession('a'.repeat(64)))).resolves.toBeUndefined();
  });

  test('a password of 11 characters: refused with the policy, nothing changed', async () => {
    secretInput = 'short-pass1';

    await expect(run('user', 'password', 'reader@example.com')).rejects.toThrow(
      new CliError('Password must be at least 12 characters long; this one has 11'),
    );
    const hash = await withStore(async (store) => store.getPasswordHash((await store.findUserByEmail('reader@example.com'))!.id));
    expect(hash).toBeUndefined();
  });

  test('nothing on stdin: refused with a CliError', async () => {
    await expect(run('user', 'password', 'reader@example.com')).rejects.toThrow(new CliError('No password on standard input'));
  });

  test('an unknown email: refused naming it', async () => {
    await expect(run('user', 'password', 'nobody@example.com', '--password', 'an option password')).rejects.toThrow(
      new CliError('No user with email "nobody@example.com"'),
    );
  });
});
