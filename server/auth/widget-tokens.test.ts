import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { openStore } from '../store/open-store.ts';
import { createTestStoreLocation } from '../testing/test-store.ts';
import type { Store, User, Visibility } from '../store/store.ts';
import { hashToken, issueToken, TokenIssueError, type IssueTokenInput } from './widget-tokens.ts';

const KB_ID = 'docs';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const CAP_MINUTES = 1440;

interface Workspace {
  store: Store;
  folder: string;
  users: { owner: User; editor: User; reader: User; outsider: User };
  /** Issues a token as the owner for `KB_ID`, with the given input and cap. */
  issue(input?: Partial<IssueTokenInput>, ttlCapMinutes?: number): ReturnType<typeof issueToken>;
}

/** A store with one knowledge base and a user per role, in a temporary folder removed after the test. */
async function openWorkspace(): Promise<Workspace> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-widget-tokens-test-'));
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location, () => NOW);
  onTestFinished(async () => {
    await store.close();
    await dispose();
    await rm(folder, { recursive: true, force: true });
  });
  await store.createKnowledgeBase({ id: KB_ID, name: 'Docs' });
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  const editor = await store.createUser({ email: 'editor@example.com', name: 'Editor' });
  const reader = await store.createUser({ email: 'reader@example.com', name: 'Reader' });
  const outsider = await store.createUser({ email: 'outsider@example.com', name: 'Outsider' });
  await store.setRole(KB_ID, owner.id, 'owner');
  await store.setRole(KB_ID, editor.id, 'editor');
  await store.setRole(KB_ID, reader.id, 'reader');
  return {
    store,
    folder,
    users: { owner, editor, reader, outsider },
    issue(input = {}, ttlCapMinutes = CAP_MINUTES) {
      return issueToken(
        store,
        { kbId: KB_ID, issuerId: owner.id, allowedOrigins: ['https://shop.example.com'], ...input },
        { ttlCapMinutes, now: NOW },
      );
    },
  };
}

/** Runs `issuing` and returns the TokenIssueError it rejects with. */
async function issueError(issuing: Promise<unknown>): Promise<TokenIssueError> {
  const error = await issuing.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TokenIssueError);
  return error as TokenIssueError;
}

describe('issueToken', () => {
  test('owner issuing with defaults: a kbw_ token of 43 base64url characters, stored under its SHA-256 hash', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { token, record } = await workspace.issue();

    // Assert
    expect(token).toMatch(/^kbw_[A-Za-z0-9_-]{43}$/);
    expect(record.tokenHash).toBe(hashToken(token));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(await workspace.store.findTokenByHash(hashToken(token))).toEqual(record);
    expect(record).toMatchObject({ kbId: KB_ID, issuerId: workspace.users.owner.id, createdAt: NOW });
  });

  test('two issues: two different tokens', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const first = await workspace.issue();
    const second = await workspace.issue();

    // Assert
    expect(first.token).not.toBe(second.token);
    expect(first.record.id).not.toBe(second.record.id);
  });

  test('issued token: the secret appears neither in listTokens nor in the database files', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { token } = await workspace.issue();

    // Assert
    const listed = JSON.stringify(await workspace.store.listTokens(KB_ID));
    expect(listed).toContain(hashToken(token));
    expect(listed).not.toContain(token);
    expect(listed).not.toContain(token.slice('kbw_'.length));
    await workspace.store.close();
    for (const name of await readdir(workspace.folder)) {
      const bytes = await readFile(join(workspace.folder, name));
      expect(bytes.includes(token.slice('kbw_'.length))).toBe(false);
    }
  });

  test('no lifetime given: expires 60 minutes after issue', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue();

    // Assert
    expect(record.expiresAt - record.createdAt).toBe(60 * 60_000);
    expect(record.expiresAt).toBe(NOW + 3_600_000);
  });

  test('no lifetime given and a cap below 60 minutes: expires at the cap', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue({}, 30);

    // Assert
    expect(record.expiresAt).toBe(NOW + 30 * 60_000);
  });

  test.each([1, 5, 59, CAP_MINUTES])('lifetime of %i minutes (at most the cap): honoured', async (ttlMinutes) => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue({ ttlMinutes });

    // Assert
    expect(record.expiresAt).toBe(NOW + ttlMinutes * 60_000);
  });

  test('lifetime above the cap: refused as invalid naming both values, nothing stored', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const error = await issueError(workspace.issue({ ttlMinutes: 121 }, 120));

    // Assert
    expect(error.reason).toBe('invalid');
    expect(error.message).toMatch(/121/);
    expect(error.message).toMatch(/120/);
    expect(await workspace.store.listTokens(KB_ID)).toEqual([]);
  });

  test.each([0, -5, 1.5, Number.NaN])('lifetime of %d minutes: refused as invalid', async (ttlMinutes) => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const error = await issueError(workspace.issue({ ttlMinutes }));

    // Assert
    expect(error.reason).toBe('invalid');
    expect(await workspace.store.listTokens(KB_ID)).toEqual([]);
  });

  test('editor issuing: allowed', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue({ issuerId: workspace.users.editor.id });

    // Assert
    expect(record.issuerId).toBe(workspace.users.editor.id);
  });

  test.each(['reader', 'outsider'] as const)('%s issuing: refused as forbidden, nothing stored', async (who) => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const error = await issueError(workspace.issue({ issuerId: workspace.users[who].id }));

    // Assert
    expect(error.reason).toBe('forbidden');
    expect(error.message).toContain(KB_ID);
    expect(await workspace.store.listTokens(KB_ID)).toEqual([]);
  });

  test('owner of another knowledge base issuing for this one: refused as forbidden', async () => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.store.createKnowledgeBase({ id: 'other', name: 'Other' });
    await workspace.store.setRole('other', workspace.users.outsider.id, 'owner');

    // Act
    const error = await issueError(workspace.issue({ issuerId: workspace.users.outsider.id }));

    // Assert
    expect(error.reason).toBe('forbidden');
  });

  test.each([
    'shop.example.com',
    'https://shop.example.com/path',
    'ftp://shop.example.com',
    'null',
    'https://*',
    'https://user@shop.example.com',
  ])('malformed allowed origin %j: refused as invalid, the message quoting it', async (origin) => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const error = await issueError(workspace.issue({ allowedOrigins: ['https://good.example.com', origin] }));

    // Assert
    expect(error.reason).toBe('invalid');
    expect(error.message).toContain(`"${origin}"`);
    expect(await workspace.store.listTokens(KB_ID)).toEqual([]);
  });

  test('allowed origins in non-canonical forms: stored canonical and without duplicates', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue({
      allowedOrigins: [
        'HTTPS://Shop.Example.COM:443',
        'https://shop.example.com/',
        'http://LOCALHOST:5173',
        'https://*.Example.ORG:443',
        'https://bücher.example',
      ],
    });

    // Assert
    expect(record.allowedOrigins).toEqual([
      'https://shop.example.com',
      'http://localhost:5173',
      'https://*.example.org',
      'https://xn--bcher-kva.example',
    ]);
    expect((await workspace.store.listTokens(KB_ID))[0]?.allowedOrigins).toEqual(record.allowedOrigins);
  });

  test('empty allowed origins: a server-only token with no origins', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue({ allowedOrigins: [] });

    // Assert
    expect(record.allowedOrigins).toEqual([]);
  });

  test('no scope given: public only', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue();

    // Assert
    expect(record.scope).toEqual(['public']);
  });

  test('scope with every visibility, one repeated: stored once each', async () => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const { record } = await workspace.issue({ scope: ['public', 'workspace', 'restricted', 'public'] });

    // Assert
    expect(record.scope).toEqual(['public', 'workspace', 'restricted']);
  });

  test.each<[string, string[]]>([
    ['an unknown visibility', ['public', 'secret']],
    ['no visibility', []],
  ])('scope with %s: refused as invalid', async (_case, scope) => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const error = await issueError(workspace.issue({ scope: scope as Visibility[] }));

    // Assert
    expect(error.reason).toBe('invalid');
    expect(await workspace.store.listTokens(KB_ID)).toEqual([]);
  });
});

describe('hashToken', () => {
  test('a token: its SHA-256 in lowercase hex', () => {
    // Act
    const hash = hashToken('abc');

    // Assert (FIPS 180-2 test vector for "abc")
    expect(hash).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
