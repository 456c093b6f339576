import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { tokenReach } from '../access/access-rules.ts';
import { openStore } from '../store/open-store.ts';
import { createTestStoreLocation } from '../testing/test-store.ts';
import type { Store, User } from '../store/store.ts';
import { checkWidgetRequest, type WidgetCredentials } from './token-check.ts';
import { issueToken, type IssueTokenInput } from './widget-tokens.ts';

const KB_ID = 'docs';
const ISSUED_AT = Date.UTC(2026, 0, 15, 12, 0, 0);
const ORIGIN = 'https://shop.example.com';

interface Workspace {
  store: Store;
  users: { owner: User; editor: User; reader: User };
  /** Issues a token at `ISSUED_AT` (default: owner, `KB_ID`, origin `ORIGIN`, public scope, 60 minutes). */
  issue(input?: Partial<IssueTokenInput>): Promise<{ token: string; id: string; expiresAt: number }>;
  /** Checks a request (default: `KB_ID`, origin `ORIGIN`, one minute after issue). */
  check(token: string | undefined, credentials?: Partial<Omit<WidgetCredentials, 'token'>>): ReturnType<typeof checkWidgetRequest>;
}

/** A store with two knowledge bases and a user per role, in a temporary folder removed after the test. */
async function openWorkspace(): Promise<Workspace> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-token-check-test-'));
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location, () => ISSUED_AT);
  onTestFinished(async () => {
    await store.close();
    await dispose();
    await rm(folder, { recursive: true, force: true });
  });
  await store.createKnowledgeBase({ id: KB_ID, name: 'Docs' });
  await store.createKnowledgeBase({ id: 'other', name: 'Other' });
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  const editor = await store.createUser({ email: 'editor@example.com', name: 'Editor' });
  const reader = await store.createUser({ email: 'reader@example.com', name: 'Reader' });
  await store.setRole(KB_ID, owner.id, 'owner');
  await store.setRole(KB_ID, editor.id, 'editor');
  await store.setRole(KB_ID, reader.id, 'reader');
  await store.setRole('other', owner.id, 'owner');
  return {
    store,
    users: { owner, editor, reader },
    async issue(input = {}) {
      const { token, record } = await issueToken(
        store,
        { kbId: KB_ID, issuerId: owner.id, allowedOrigins: [ORIGIN], ...input },
        { ttlCapMinutes: 1440, now: ISSUED_AT },
      );
      return { token, id: record.id, expiresAt: record.expiresAt };
    },
    check(token, credentials = {}) {
      return checkWidgetRequest(store, { token, kbId: KB_ID, origin: ORIGIN, now: ISSUED_AT + 60_000, ...credentials });
    },
  };
}

describe('checkWidgetRequest', () => {
  test('valid token from an allowed origin: granted with the token and its reach', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token, id } = await workspace.issue();

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result).toMatchObject({ ok: true, token: { id, kbId: KB_ID } });
    expect(result.ok && result.reach).toEqual({ kbId: KB_ID, userId: workspace.users.owner.id, visibilities: ['public'] });
  });

  test.each([undefined, ''])('token %j: refused missing_token', async (token) => {
    // Arrange
    const workspace = await openWorkspace();

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result).toEqual({ ok: false, code: 'missing_token', detail: expect.stringMatching(/Authorization/) });
  });

  test.each([
    ['an unknown kbw_ token', 'kbw_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a token without the prefix', 'not-a-widget-token'],
  ])('%s: refused invalid_token', async (_case, token) => {
    // Arrange
    const workspace = await openWorkspace();
    await workspace.issue();

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result).toMatchObject({ ok: false, code: 'invalid_token' });
  });

  test('issued token without its kbw_ prefix (its stored hash presented otherwise): refused invalid_token', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue();

    // Act
    const result = await workspace.check(token.slice('kbw_'.length));

    // Assert
    expect(result).toMatchObject({ ok: false, code: 'invalid_token' });
  });

  test('revoked token: refused token_revoked naming the token id', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token, id } = await workspace.issue();
    await workspace.store.revokeToken(id, ISSUED_AT + 1_000);

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result).toEqual({ ok: false, code: 'token_revoked', detail: expect.stringContaining(id) });
  });

  test('token checked 1 ms before its expiry: granted', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token, expiresAt } = await workspace.issue({ ttlMinutes: 5 });

    // Act
    const result = await workspace.check(token, { now: expiresAt - 1 });

    // Assert
    expect(result.ok).toBe(true);
  });

  test('token checked at exactly its expiry time: refused token_expired with the expiry time', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token, expiresAt } = await workspace.issue({ ttlMinutes: 5 });

    // Act
    const result = await workspace.check(token, { now: expiresAt });

    // Assert
    expect(result).toEqual({ ok: false, code: 'token_expired', detail: expect.stringContaining(new Date(expiresAt).toISOString()) });
  });

  test.each<[string, 'reader' | undefined]>([
    ['demoted to reader', 'reader'],
    ['removed from the knowledge base', undefined],
  ])('token whose issuer was %s: refused token_revoked', async (_case, role) => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue({ issuerId: workspace.users.editor.id });
    if (role) await workspace.store.setRole(KB_ID, workspace.users.editor.id, role);
    else await workspace.store.removeRole(KB_ID, workspace.users.editor.id);

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result).toEqual({ ok: false, code: 'token_revoked', detail: expect.stringMatching(/issuer/) });
  });

  test('token whose issuer was removed from the workspace: refused with token_revoked, naming why', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue({ issuerId: workspace.users.editor.id });
    await workspace.store.removeUser(workspace.users.editor.id);

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result).toMatchObject({ ok: false, code: 'token_revoked', detail: expect.stringContaining('issuer was removed') });
  });

  test('token whose editor issuer was promoted to owner: still granted', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue({ issuerId: workspace.users.editor.id });
    await workspace.store.setRole(KB_ID, workspace.users.editor.id, 'owner');

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result.ok).toBe(true);
  });

  test('token of one knowledge base used on another: refused kb_mismatch naming both', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue();

    // Act
    const result = await workspace.check(token, { kbId: 'other' });

    // Assert
    expect(result).toEqual({ ok: false, code: 'kb_mismatch', detail: expect.stringMatching(/"docs".*"other"/) });
  });

  test.each([
    ['a different host', 'https://evil.example.com'],
    ['a look-alike with the allowed host as a prefix', 'https://shop.example.com.evil.test'],
    ['a look-alike without the dot', 'https://shopexample.com'],
    ['a look-alike subdomain', 'https://evil.shop.example.com'],
    ['another scheme', 'http://shop.example.com'],
    ['another port', 'https://shop.example.com:8443'],
    ['the opaque origin', 'null'],
    ['an empty Origin header', ''],
    ['a malformed origin', 'shop.example.com'],
  ])('Origin of %s: refused origin_not_allowed quoting it', async (_case, origin) => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue();

    // Act
    const result = await workspace.check(token, { origin });

    // Assert
    expect(result).toEqual({ ok: false, code: 'origin_not_allowed', detail: `Origin "${origin}" is not allowed for this token` });
  });

  test.each([
    ['the same origin in another casing with the default port', 'HTTPS://SHOP.example.com:443'],
    ['the same origin with a trailing slash', 'https://shop.example.com/'],
  ])('Origin of %s: granted', async (_case, origin) => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue();

    // Act
    const result = await workspace.check(token, { origin });

    // Assert
    expect(result.ok).toBe(true);
  });

  test('subdomain pattern: a subdomain granted, the apex refused', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue({ allowedOrigins: ['https://*.example.com'] });

    // Act
    const subdomain = await workspace.check(token, { origin: 'https://shop.example.com' });
    const apex = await workspace.check(token, { origin: 'https://example.com' });

    // Assert
    expect(subdomain.ok).toBe(true);
    expect(apex).toMatchObject({ ok: false, code: 'origin_not_allowed' });
  });

  test('request without an Origin header (a server call): granted, also for a token with no allowed origins', async () => {
    // Arrange
    const workspace = await openWorkspace();
    const { token } = await workspace.issue({ allowedOrigins: [] });

    // Act
    const withoutOrigin = await workspace.check(token, { origin: undefined });
    const fromBrowser = await workspace.check(token, { origin: ORIGIN });

    // Assert
    expect(withoutOrigin.ok).toBe(true);
    expect(fromBrowser).toMatchObject({ ok: false, code: 'origin_not_allowed' });
  });

  test.each<[string, string, (workspace: Workspace, token: { id: string; expiresAt: number }) => Promise<Partial<WidgetCredentials>>]>([
    [
      'revoked and expired',
      'token_revoked',
      async (workspace, token) => {
        await workspace.store.revokeToken(token.id, ISSUED_AT);
        return { now: token.expiresAt + 1 };
      },
    ],
    [
      'expired, issuer demoted, wrong KB and origin',
      'token_expired',
      async (workspace, token) => {
        await workspace.store.setRole(KB_ID, workspace.users.editor.id, 'reader');
        return { now: token.expiresAt, kbId: 'other', origin: 'null' };
      },
    ],
    [
      'issuer demoted, wrong KB and origin',
      'token_revoked',
      async (workspace) => {
        await workspace.store.setRole(KB_ID, workspace.users.editor.id, 'reader');
        return { kbId: 'other', origin: 'null' };
      },
    ],
    ['wrong KB and origin', 'kb_mismatch', async () => ({ kbId: 'other', origin: 'https://evil.example.com' })],
  ])('token %s: refused %s, the first failing check in the documented order', async (_case, code, arrange) => {
    // Arrange
    const workspace = await openWorkspace();
    const issued = await workspace.issue({ issuerId: workspace.users.editor.id });
    const credentials = await arrange(workspace, issued);

    // Act
    const result = await workspace.check(issued.token, credentials);

    // Assert
    expect(result).toMatchObject({ ok: false, code });
  });

  test.each<[string, 'owner' | 'editor', IssueTokenInput['scope']]>([
    ['owner, default scope', 'owner', undefined],
    ['owner, every visibility', 'owner', ['public', 'workspace', 'restricted']],
    ['editor, workspace and restricted', 'editor', ['workspace', 'restricted']],
  ])('granted token of %s: reach equals tokenReach of the issuer\'s role now and the scope', async (_case, who, scope) => {
    // Arrange
    const workspace = await openWorkspace();
    const issuer = workspace.users[who];
    const { token } = await workspace.issue(scope ? { issuerId: issuer.id, scope } : { issuerId: issuer.id });

    // Act
    const result = await workspace.check(token);

    // Assert
    expect(result.ok).toBe(true);
    expect(result.ok && result.reach).toEqual(tokenReach(KB_ID, issuer.id, who, scope ?? ['public']));
    expect(result.ok && result.reach.visibilities).toEqual(scope ?? ['public']);
  });
});
