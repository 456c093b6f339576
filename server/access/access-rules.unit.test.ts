import { describe, expect, test } from 'vitest';
import {
  canManageMembers,
  canReadDocument,
  hasUpdatePermission,
  memberReach,
  readableVisibilities,
  ReadersNotMembersError,
  removesLastOwner,
  requireReadersAreMembers,
  tokenReach,
} from './access-rules.ts';
import type { Membership, Role } from '../store/store.ts';

describe('readableVisibilities', () => {
  test('not a member: public only', () => {
    expect(readableVisibilities(undefined)).toEqual(['public']);
  });

  test.each<Role>(['reader', 'editor', 'owner'])(
    'member with role %s: public, workspace and restricted (restricted filtered per document by the store)',
    (role) => {
      expect(readableVisibilities(role)).toEqual(['public', 'workspace', 'restricted']);
    },
  );
});

describe('tokenReach', () => {
  test('default scope (public) from an owner: public only, for the token KB and issuer', () => {
    const reach = tokenReach('node-docs', 'user-1', 'owner', ['public']);

    expect(reach).toEqual({ kbId: 'node-docs', userId: 'user-1', visibilities: ['public'] });
  });

  test('wide scope from an editor: the whole scope', () => {
    const reach = tokenReach('node-docs', 'user-1', 'editor', ['public', 'workspace', 'restricted']);

    expect(reach.visibilities).toEqual(['public', 'workspace', 'restricted']);
  });

  test('scope narrower than what the issuer reads: the scope, not the issuer reach', () => {
    const reach = tokenReach('node-docs', 'user-1', 'owner', ['workspace']);

    expect(reach.visibilities).toEqual(['workspace']);
  });

  test('issuer no longer a member, token issued for every visibility: public only', () => {
    const reach = tokenReach('node-docs', 'user-1', undefined, ['public', 'workspace', 'restricted']);

    expect(reach).toEqual({ kbId: 'node-docs', userId: 'user-1', visibilities: ['public'] });
  });

  test('issuer no longer a member, token scoped to workspace documents only: reaches nothing', () => {
    const reach = tokenReach('node-docs', 'user-1', undefined, ['workspace']);

    expect(reach.visibilities).toEqual([]);
  });

  test('empty scope: reaches nothing whatever the role', () => {
    const reach = tokenReach('node-docs', 'user-1', 'owner', []);

    expect(reach.visibilities).toEqual([]);
  });
});

describe('hasUpdatePermission and canManageMembers', () => {
  test.each<[Role | undefined, boolean, boolean]>([
    [undefined, false, false],
    ['reader', false, false],
    ['editor', true, false],
    ['owner', true, true],
  ])('role %s: update permission %s, manages members %s', (role, update, manage) => {
    expect(hasUpdatePermission(role)).toBe(update);
    expect(canManageMembers(role)).toBe(manage);
  });
});

describe('canReadDocument and memberReach', () => {
  const restricted = { visibility: 'restricted' as const, readers: ['usr_alice'] };

  test('a restricted document: read by a member among its readers, not by another member, never by a non-member reader', () => {
    expect(canReadDocument('usr_alice', 'reader', restricted)).toBe(true);
    expect(canReadDocument('usr_bob', 'owner', restricted)).toBe(false);
    expect(canReadDocument('usr_alice', undefined, restricted)).toBe(false);
  });

  test('workspace and public documents: workspace for members only, public for anyone', () => {
    expect(canReadDocument('usr_bob', 'reader', { visibility: 'workspace', readers: [] })).toBe(true);
    expect(canReadDocument('usr_bob', undefined, { visibility: 'workspace', readers: [] })).toBe(false);
    expect(canReadDocument('usr_bob', undefined, { visibility: 'public', readers: [] })).toBe(true);
  });

  test('memberReach: the knowledge base, the person, and what their role reads', () => {
    expect(memberReach('help', 'usr_bob', 'editor')).toEqual({ kbId: 'help', userId: 'usr_bob', visibilities: ['public', 'workspace', 'restricted'] });
    expect(memberReach('help', 'usr_bob', undefined)).toEqual({ kbId: 'help', userId: 'usr_bob', visibilities: ['public'] });
  });
});

describe('requireReadersAreMembers', () => {
  const members: Membership[] = [
    { kbId: 'help', userId: 'usr_alice', role: 'reader' },
    { kbId: 'help', userId: 'usr_owner', role: 'owner' },
  ];
  const store = { listMembers: async () => members.map((member) => ({ ...member, email: `${member.userId}@example.com` })) };

  test('readers who are all members, or none: accepted', async () => {
    await expect(requireReadersAreMembers(store, 'help', ['usr_alice', 'usr_owner'])).resolves.toBeUndefined();
    await expect(requireReadersAreMembers(store, 'help', [])).resolves.toBeUndefined();
  });

  test('a reader who is not a member: refused naming only them, as the caller names people', async () => {
    const checking = requireReadersAreMembers(store, 'help', ['usr_alice', 'usr_stranger'], (userId) => `<${userId}>`);

    await expect(checking).rejects.toBeInstanceOf(ReadersNotMembersError);
    await expect(checking).rejects.toThrow('readers: not members of "help": <usr_stranger>');
  });
});

describe('removesLastOwner', () => {
  const members = [
    { userId: 'usr_owner', role: 'owner' as const },
    { userId: 'usr_editor', role: 'editor' as const },
  ];

  test('the only owner demoted or removed: true; another member changed, or the owner kept: false', () => {
    expect(removesLastOwner(members, 'usr_owner', 'editor')).toBe(true);
    expect(removesLastOwner(members, 'usr_owner', undefined)).toBe(true);
    expect(removesLastOwner(members, 'usr_owner', 'owner')).toBe(false);
    expect(removesLastOwner(members, 'usr_editor', undefined)).toBe(false);
  });

  test('one of two owners demoted: false', () => {
    expect(removesLastOwner([...members, { userId: 'usr_second', role: 'owner' }], 'usr_owner', 'reader')).toBe(false);
  });
});
