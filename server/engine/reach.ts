import type { Reach, Role, Visibility } from '../store/store.ts';

/**
 * The visibilities a person with `role` on a knowledge base can read
 * (DESIGN.md "Access rules"): anyone reads `public`; members read `workspace`;
 * `restricted` documents are readable only by their listed readers, which the
 * store checks per document inside the query.
 *
 * @param role the person's role on the knowledge base, undefined when not a member
 */
export function readableVisibilities(role: Role | undefined): Visibility[] {
  return role ? ['public', 'workspace', 'restricted'] : ['public'];
}

/**
 * What a question may reach through a token: the documents of the token's
 * knowledge base that its issuer can read now, intersected with the token's
 * scope. A token never widens its issuer's reach.
 *
 * @param kbId the token's knowledge base
 * @param issuerId the user who issued the token
 * @param issuerRole the issuer's role now (undefined when no longer a member)
 * @param scope the visibilities the token was issued for
 */
export function tokenReach(
  kbId: string,
  issuerId: string,
  issuerRole: Role | undefined,
  scope: readonly Visibility[],
): Reach {
  const readable = new Set(readableVisibilities(issuerRole));
  return { kbId, userId: issuerId, visibilities: scope.filter((visibility) => readable.has(visibility)) };
}
