import { parseAllowedOrigin } from '../protocol/origins.ts';
import type {
  ConsoleDocument,
  ConsoleMember,
  CuratedAnswer,
  CuratedAnswerList,
  CuratedAnswerRequest,
  DocumentAccessRequest,
  HeadingList,
  ImportJob,
  ImportJobList,
  ImportRequest,
  ImportSource,
  ImportSourceList,
  DocumentRequest,
  Insights,
  Invitation,
  PasswordLink,
  StoredDocument,
  ConsoleToken,
  ConsoleUser,
  IssuedToken,
  IssueTokenRequest,
  KnowledgeBaseDetail,
  KnowledgeBaseSummary,
  PreviewToken,
  TokenList,
  TokenListQuery,
  UploadJob,
  UploadRequest,
} from '../protocol/console-protocol.ts';
import type { Role, Visibility } from '../protocol/workspace-terms.ts';

/**
 * The console's calls to its JSON API (`/console/api`, described in
 * `/openapi.json`), DOM-free so it runs in Node tests as well as in the
 * browser. Every call sends the session cookie of the page's own origin
 * (`credentials: 'same-origin'`); a refusal becomes a {@link ConsoleApiError}
 * carrying the problem's `detail` (RFC 9457), the sentence the server wrote
 * for a person.
 */

/** A refused or failed console call: the HTTP status, the problem code and a sentence for a person. */
export class ConsoleApiError extends Error {
  /** HTTP status; 0 when the request never reached the server. */
  readonly status: number;
  /** The problem's `code` (`unauthenticated`, `forbidden`, `invalid_request`, …), if any. */
  readonly code: string | undefined;

  constructor(status: number, code: string | undefined, message: string) {
    super(message);
    this.name = 'ConsoleApiError';
    this.status = status;
    this.code = code;
  }
}

/** The `fetch` the client calls; tests pass their own. */
export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

/**
 * A preview token is handed out again while at least this much of its life
 * is left (ms): a question asked with it still has time to be answered, and
 * the widget renews it through its `tokenProvider` once it has expired.
 */
export const PREVIEW_TOKEN_REUSE_MARGIN_MS = 2 * 60_000;

/** A preview token the client holds: the token, and until when (client clock, ms) it is handed out again. */
interface HeldPreviewToken {
  token: PreviewToken;
  reusableUntil: number;
}

/**
 * The console API, one method per route.
 *
 * @throws ConsoleApiError from every method when the server refuses (4xx,
 *   5xx, with the problem's detail as message) or cannot be reached
 */
export class ConsoleClient {
  readonly #baseUrl: string;
  readonly #fetch: FetchFunction;
  readonly #now: () => number;
  /** Preview tokens held for reuse, by knowledge base and scope. */
  readonly #previewTokens = new Map<string, Promise<HeldPreviewToken>>();

  /**
   * @param options.baseUrl origin of the console API, empty for the page's own (the default)
   * @param options.fetch `fetch` to call (default: the global one)
   * @param options.now the page's clock, epoch ms (default `Date.now`)
   */
  constructor(options: { baseUrl?: string; fetch?: FetchFunction; now?: () => number } = {}) {
    this.#baseUrl = options.baseUrl ?? '';
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#now = options.now ?? (() => Date.now());
  }

  /** @returns the signed-in person, or undefined when nobody is signed in (401) */
  async currentUser(): Promise<ConsoleUser | undefined> {
    try {
      return (await this.#request<{ user: ConsoleUser }>('GET', '/session')).user;
    } catch (error) {
      if (error instanceof ConsoleApiError && error.status === 401) return undefined;
      throw error;
    }
  }

  /** Signs in; the server sets the session cookie. A wrong email or password is a 401 ConsoleApiError. */
  async signIn(email: string, password: string): Promise<void> {
    await this.#request('POST', '/session', { email, password });
  }

  /** Signs out, and forgets the preview tokens held for reuse (they were the signed-out person's). */
  async signOut(): Promise<void> {
    this.#previewTokens.clear();
    await this.#request('DELETE', '/session');
  }

  /**
   * Checks a set-password link without using it.
   *
   * @param token the link's secret (after `#/set-password/`)
   * @returns the account it is for and when it expires; an unusable link is a ConsoleApiError with code `invalid_link`
   */
  async checkPasswordLink(token: string): Promise<PasswordLink> {
    return this.#request<PasswordLink>('POST', '/set-password/check', { token });
  }

  /** Sets the first password through a set-password link and signs in; the server sets the session cookie. */
  async setPasswordWithLink(token: string, password: string): Promise<void> {
    await this.#request('POST', '/set-password', { token, password });
  }

  async listKnowledgeBases(): Promise<KnowledgeBaseSummary[]> {
    return (await this.#request<{ knowledge_bases: KnowledgeBaseSummary[] }>('GET', '/knowledge-bases')).knowledge_bases;
  }

  async getKnowledgeBase(kbId: string): Promise<KnowledgeBaseDetail> {
    return this.#request<KnowledgeBaseDetail>('GET', kbPath(kbId));
  }

  async listDocuments(kbId: string): Promise<ConsoleDocument[]> {
    return (await this.#request<{ documents: ConsoleDocument[] }>('GET', `${kbPath(kbId)}/documents`)).documents;
  }

  /**
   * Adds or replaces a document from a file's bytes (editors and owners),
   * indexed in one transaction; a refused file (not its format, a reader
   * who is not a member) is a 400 ConsoleApiError naming why, and stores nothing.
   */
  async putDocument(kbId: string, docId: string, request: DocumentRequest): Promise<StoredDocument> {
    return this.#request<StoredDocument>('PUT', documentPath(kbId, docId), request);
  }

  /**
   * Starts an upload of files (editors and owners): the server indexes them
   * one by one as a job, each in its own transaction; follow it with
   * {@link getUpload}. A refusal before it starts (an id, readers who are not
   * members, more than the upload's limit) is a ConsoleApiError naming why.
   */
  async startUpload(kbId: string, request: UploadRequest): Promise<UploadJob> {
    return this.#request<UploadJob>('POST', `${kbPath(kbId)}/uploads`, request);
  }

  /** An upload's progress and each file's outcome so far. */
  async getUpload(kbId: string, jobId: string): Promise<UploadJob> {
    return this.#request<UploadJob>('GET', `${kbPath(kbId)}/uploads/${encodeURIComponent(jobId)}`);
  }

  /** Changes who may read a document and whether it may be quoted (editors and owners). */
  async setDocumentAccess(kbId: string, docId: string, access: DocumentAccessRequest): Promise<ConsoleDocument> {
    return this.#request<ConsoleDocument>('PATCH', documentPath(kbId, docId), access);
  }

  /** Removes a document and its passages (editors and owners). */
  async removeDocument(kbId: string, docId: string): Promise<void> {
    await this.#request('DELETE', documentPath(kbId, docId));
  }

  /** What visitors asked over the last `days` days (editors and owners): per day, coverage gaps, 👎 answers. */
  async getInsights(kbId: string, days: number): Promise<Insights> {
    return this.#request<Insights>('GET', `${kbPath(kbId)}/insights?days=${days}`);
  }

  /** Starts a website import (editors and owners); it runs on the server: follow it with {@link getImport}. */
  async startImport(kbId: string, request: ImportRequest): Promise<ImportJob> {
    return this.#request<ImportJob>('POST', `${kbPath(kbId)}/imports`, request);
  }

  async getImport(kbId: string, jobId: string): Promise<ImportJob> {
    return this.#request<ImportJob>('GET', `${kbPath(kbId)}/imports/${encodeURIComponent(jobId)}`);
  }

  /** The knowledge base's website imports, newest first. */
  async listImports(kbId: string): Promise<ImportJob[]> {
    return (await this.#request<ImportJobList>('GET', `${kbPath(kbId)}/imports`)).imports;
  }

  /** The websites the knowledge base imports again on a schedule, by next sync. */
  async listImportSources(kbId: string): Promise<ImportSource[]> {
    return (await this.#request<ImportSourceList>('GET', `${kbPath(kbId)}/import-sources`)).sources;
  }

  /** Syncs a re-synced website now (editors and owners); follow the import with {@link getImport}. */
  async syncImportSource(kbId: string, sourceId: string): Promise<ImportJob> {
    return this.#request<ImportJob>('POST', `${kbPath(kbId)}/import-sources/${encodeURIComponent(sourceId)}/sync`, {});
  }

  /** Stops re-syncing a website (editors and owners); its documents stay. */
  async stopImportSource(kbId: string, sourceId: string): Promise<void> {
    await this.#request<void>('DELETE', `${kbPath(kbId)}/import-sources/${encodeURIComponent(sourceId)}`);
  }

  /** The curated answers the person can read, and how many others are hidden from them. */
  async listCuratedAnswers(kbId: string): Promise<CuratedAnswerList> {
    return this.#request<CuratedAnswerList>('GET', `${kbPath(kbId)}/curated-answers`);
  }

  /** Adds a curated answer (editors and owners); a source the person cannot read or a heading not in it is a 400 ConsoleApiError. */
  async addCuratedAnswer(kbId: string, request: CuratedAnswerRequest): Promise<CuratedAnswer> {
    return this.#request<CuratedAnswer>('POST', `${kbPath(kbId)}/curated-answers`, request);
  }

  async updateCuratedAnswer(kbId: string, id: number, request: CuratedAnswerRequest): Promise<CuratedAnswer> {
    return this.#request<CuratedAnswer>('PUT', `${kbPath(kbId)}/curated-answers/${id}`, request);
  }

  async removeCuratedAnswer(kbId: string, id: number): Promise<void> {
    await this.#request('DELETE', `${kbPath(kbId)}/curated-answers/${id}`);
  }

  /** The headings of one document, in document order: what a curated answer may cite. */
  async listHeadings(kbId: string, docId: string): Promise<string[]> {
    return (await this.#request<HeadingList>('GET', `${kbPath(kbId)}/headings?doc_id=${encodeURIComponent(docId)}`)).headings;
  }

  async listMembers(kbId: string): Promise<ConsoleMember[]> {
    return (await this.#request<{ members: ConsoleMember[] }>('GET', `${kbPath(kbId)}/members`)).members;
  }

  /** Sets a member's role (owners only). */
  async setMemberRole(kbId: string, userId: string, role: Role): Promise<void> {
    await this.#request('PUT', `${kbPath(kbId)}/members/${encodeURIComponent(userId)}`, { role });
  }

  /**
   * Invites a person by email with a role (owners only): they are added, and
   * when they have no password yet the answer carries their one-time
   * set-password link; an existing member is a 409 ConsoleApiError.
   */
  async invite(kbId: string, email: string, role: Role): Promise<Invitation> {
    return this.#request<Invitation>('POST', `${kbPath(kbId)}/invitations`, { email, role });
  }

  /** A new set-password link for a member who has not set a password yet (owners only); their earlier links stop working. */
  async createPasswordLink(kbId: string, userId: string): Promise<Invitation> {
    return this.#request<Invitation>('POST', `${kbPath(kbId)}/members/${encodeURIComponent(userId)}/password-link`, {});
  }

  /** Removes a member from the knowledge base (owners only); the last owner cannot be removed (400). */
  async removeMember(kbId: string, userId: string): Promise<void> {
    await this.#request('DELETE', `${kbPath(kbId)}/members/${encodeURIComponent(userId)}`);
  }

  /**
   * A page of the knowledge base's tokens, newest first: `query` filters by
   * status, origin (text within an allowed origin) and purpose, and
   * continues from a `next_cursor`; parameters left undefined are not sent.
   */
  async listTokens(kbId: string, query: TokenListQuery = {}): Promise<TokenList> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, String(value));
    const suffix = search.size === 0 ? '' : `?${search.toString()}`;
    return this.#request<TokenList>('GET', `${kbPath(kbId)}/tokens${suffix}`);
  }

  /** Issues a token (editors and owners); the result holds the secret, which the server never shows again. */
  async issueToken(kbId: string, request: IssueTokenRequest): Promise<IssuedToken> {
    return this.#request<IssuedToken>('POST', `${kbPath(kbId)}/tokens`, request);
  }

  /**
   * Issues a preview token (editors and owners) for the live preview on this
   * page: the signed-in person's, with `scope`, allowed only on the console's
   * own origin, for 10 minutes. It is listed like any token.
   */
  async issuePreviewToken(kbId: string, scope: readonly Visibility[]): Promise<PreviewToken> {
    return this.#request<PreviewToken>('POST', `${kbPath(kbId)}/tokens/preview`, { scope });
  }

  /**
   * A preview token for `kbId` and `scope`: the one this client issued
   * before while it has {@link PREVIEW_TOKEN_REUSE_MARGIN_MS} of life left
   * (judged by its lifetime as the server gave it, counted on this page's
   * clock from its arrival, so clocks need not agree), else a new one.
   * Reloads and repeated previews thus share a token instead of piling up
   * tokens in the list. Calls made while one is being issued share it.
   *
   * @param options.fresh issue a new one even if one is held (Restart preview)
   * @returns the token, and whether it was issued by this call
   */
  async previewToken(kbId: string, scope: readonly Visibility[], options: { fresh?: boolean } = {}): Promise<{ token: PreviewToken; issued: boolean }> {
    const key = `${kbId}\n${[...scope].sort().join(',')}`;
    const pending = this.#previewTokens.get(key);
    if (pending && !options.fresh) {
      const held = await pending.catch(() => undefined);
      if (held && this.#now() < held.reusableUntil) return { token: held.token, issued: false };
      if (this.#previewTokens.get(key) !== pending) return { token: (await this.#previewTokens.get(key)!).token, issued: false };
    }
    const issuing = this.issuePreviewToken(kbId, scope).then((token) => ({
      token,
      reusableUntil: this.#now() + Date.parse(token.expires_at) - Date.parse(token.created_at) - PREVIEW_TOKEN_REUSE_MARGIN_MS,
    }));
    this.#previewTokens.set(key, issuing);
    try {
      return { token: (await issuing).token, issued: true };
    } catch (error) {
      if (this.#previewTokens.get(key) === issuing) this.#previewTokens.delete(key);
      throw error;
    }
  }

  /** Revokes a token (editors and owners); a preview token held for reuse is dropped. */
  async revokeToken(kbId: string, tokenId: string): Promise<void> {
    await this.#request('DELETE', `${kbPath(kbId)}/tokens/${encodeURIComponent(tokenId)}`);
    for (const [key, pending] of this.#previewTokens) {
      if ((await pending.catch(() => undefined))?.token.id === tokenId) this.#previewTokens.delete(key);
    }
  }

  async #request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    let response: Response;
    try {
      response = await this.#fetch(`${this.#baseUrl}/console/api${path}`, init);
    } catch (error) {
      throw new ConsoleApiError(0, undefined, `The console API could not be reached: ${(error as Error).message}`);
    }
    if (!response.ok) throw await toApiError(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}

function kbPath(kbId: string): string {
  return `/knowledge-bases/${encodeURIComponent(kbId)}`;
}

/** A document's path: its id's segments encoded one by one, its `/` kept (the API reads the id from the remaining segments). */
function documentPath(kbId: string, docId: string): string {
  return `${kbPath(kbId)}/documents/${docId.split('/').map(encodeURIComponent).join('/')}`;
}

async function toApiError(response: Response): Promise<ConsoleApiError> {
  let detail: string | undefined;
  let code: string | undefined;
  try {
    const problem = (await response.json()) as { detail?: unknown; code?: unknown };
    if (typeof problem.detail === 'string') detail = problem.detail;
    if (typeof problem.code === 'string') code = problem.code;
  } catch {
    // Not a problem document (a proxy's HTML page, an empty body): the status line says enough.
  }
  return new ConsoleApiError(response.status, code, detail ?? `The server answered ${response.status} ${response.statusText}`.trim());
}

/** Allowed origins as typed in the Developers tab, checked before they are sent. */
export type ParsedOrigins = { ok: true; origins: string[] } | { ok: false; message: string };

/**
 * Reads the "Allowed origins" field: one origin per line, blank lines and
 * surrounding spaces ignored, duplicates kept once. Each line is checked with
 * the server's own parser (protocol/origins.ts), so the page refuses what
 * the API would refuse and says which line is wrong.
 *
 * @param text the textarea's value
 * @returns the origins as typed (the server stores their canonical form), or
 *   the message for the first malformed line or an empty list
 */
export function parseOriginLines(text: string): ParsedOrigins {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const origins: string[] = [];
  for (const [index, line] of lines.entries()) {
    if (line === '') continue;
    if (parseAllowedOrigin(line) === undefined) {
      return {
        ok: false,
        message: `Line ${index + 1}: "${line}" is not an origin. Write scheme and host with an optional port, such as https://shop.example.com, http://localhost:5173 or https://*.example.com, without a path.`,
      };
    }
    if (!origins.includes(line)) origins.push(line);
  }
  if (origins.length === 0) return { ok: false, message: 'Enter at least one allowed origin, such as https://shop.example.com.' };
  return { ok: true, origins };
}
