import { describe, expect, test } from 'vitest';
import { readableVisibilities, tokenReach } from './reach.ts';
import type { Role } from '../store/store.ts';

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
