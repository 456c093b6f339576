/**
 * The console API's limits as values (docs/http-api.md "Console API"),
 * shared by the server, the console's wire schemas
 * (protocol/console-protocol.ts) and the console app. Values only, no
 * validator: the console imports this without pulling zod into its bundle.
 */

/** Largest document source the console API takes, in bytes of JSON body (25 MiB: a PDF of 18 MiB in base64). */
export const MAX_DOCUMENT_BODY_BYTES = 25 * 1024 * 1024;

/** Largest file the console uploads: what fits in {@link MAX_DOCUMENT_BODY_BYTES} once in base64 (4 bytes for 3), with room for the rest of the body. */
export const MAX_UPLOAD_FILE_BYTES = 18 * 1024 * 1024;

/** Most files one upload (`POST …/uploads`) takes. */
export const MAX_UPLOAD_FILES = 200;

/**
 * Largest body of one upload, in bytes of JSON (25 MiB, as a document's: a
 * PDF of 18 MB in base64). The console sends a larger selection as several
 * uploads, one after the other.
 */
export const MAX_UPLOAD_BODY_BYTES = MAX_DOCUMENT_BODY_BYTES;

/** Tokens a page of `GET …/tokens` holds when `limit` is not given, and the most one may ask for. */
export const DEFAULT_TOKEN_PAGE_LIMIT = 20;
export const MAX_TOKEN_PAGE_LIMIT = 100;

/** Longest interval between two syncs of a re-synced import, hours (30 days). */
export const MAX_RESYNC_HOURS = 720;

/** Most URLs one import starts from. */
export const MAX_IMPORT_URLS = 50;
