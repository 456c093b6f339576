/**
 * The workspace's vocabulary as values (docs/design-decisions.md "Access rules"), shared by
 * the server, the console's wire schemas (protocol/console-protocol.ts) and
 * the console app. Values only, no validator: the console imports this
 * without pulling zod into its bundle.
 */

/** Every role on a knowledge base, from least to most permission. */
export const ROLES = ['reader', 'editor', 'owner'] as const;

/** A person's role on a knowledge base. */
export type Role = (typeof ROLES)[number];

/** Every visibility of a document (and value of a token's scope), from widest to narrowest audience. */
export const VISIBILITIES = ['public', 'workspace', 'restricted'] as const;

/** Who may read a document: anyone, members, or its listed readers. */
export type Visibility = (typeof VISIBILITIES)[number];

/**
 * Why a token was issued: for customers' pages (`embed`), for the console's
 * live preview (`preview`), or for the demo page (`demo`). Preview and demo
 * tokens are reused by their holder while valid and deleted once expired;
 * embed tokens stay listed as an audit trail.
 */
export const TOKEN_PURPOSES = ['embed', 'preview', 'demo'] as const;

/** What a token is now: usable, past its expiry, or revoked (revocation wins over expiry). */
export const TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;

/** One of {@link TOKEN_STATUSES}. */
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/** One of {@link TOKEN_PURPOSES}. */
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];

/**
 * Fewest characters (Unicode code points) of a password (NIST SP 800-63B
 * section 5.1.1.2): the server refuses shorter ones, the console checks first
 * so a typo costs no round trip.
 */
export const MIN_PASSWORD_LENGTH = 12;
/** Most characters of a password: long passphrases welcome, unbounded input not. */
export const MAX_PASSWORD_LENGTH = 1024;
