import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CliError, createCli } from './program.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';

let folder: string;
let stdout: string;
let stderr: string;
let clock: number;

/** Runs one CLI command against the test's store; the store is opened and closed per command, as in real use. */
async function run(...args: string[]): Promise<void> {
  const program = createCli({
    openStore: () => openSqliteStore({ path: join(folder, 'kb.sqlite'), now: () => clock }),
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
  });
  program.exitOverride();
  await program.parseAsync(['node', 'kb', ...args]);
}

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-cli-test-'));
  stdout = '';
  stderr = '';
  clock = Date.UTC(2026, 0, 1);
  await run('user', 'add', 'owner@example.com');
  await run('user', 'add', 'reader@example.com');
  await run('knowledge-base', 'create', 'help');
  await run('member', 'set', 'reader@example.com', '--kb', 'help', '--role', 'reader');
  stdout = '';
});
afterEach(async () => {
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
    expect(stdout).toContain('help: 1 created, 0 updated, 0 unchanged, 0 removed, 0 failed');
    stdout = '';
    await run('ingest', join(folder, 'page.md'), '--kb', 'help');

    expect(stdout).toContain('help: 0 created, 0 updated, 1 unchanged, 0 removed, 0 failed');
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
