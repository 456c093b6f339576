import { z } from 'zod';
import {
  DEFAULT_TOKEN_PAGE_LIMIT,
  MAX_IMPORT_URLS,
  MAX_RESYNC_HOURS,
  MAX_TOKEN_PAGE_LIMIT,
  MAX_UPLOAD_FILES,
} from './console-terms.ts';
import { PROVENANCES } from './query-terms.ts';
import { ROLES, TOKEN_PURPOSES, TOKEN_STATUSES, VISIBILITIES } from './workspace-terms.ts';

/**
 * The console API's wire types (`/console/api`, docs/http-api.md "Console API"), defined once as zod
 * schemas: the server validates requests with them and types its responses
 * by them, the console app imports their types (`import type`, so no zod in
 * its bundle), and the OpenAPI document's schemas are generated from them
 * (server/http/openapi-document.ts). A schema's `id` names it among the OpenAPI
 * document's `components.schemas`.
 *
 * Times are ISO 8601 strings; optional fields are omitted, never `null`.
 */

/** A person's role on a knowledge base. */
export const RoleSchema = z.enum(ROLES).meta({ description: 'reader, editor (update permission) or owner (update permission, manages members)' });

/** Who may read a document, and a value of a token's scope. */
export const VisibilitySchema = z.enum(VISIBILITIES).meta({ description: 'public (anyone), workspace (members), restricted (listed readers)' });

/** An ISO 8601 time, as the server writes it (`Date.prototype.toISOString`). */
const timestamp = () => z.string().meta({ format: 'date-time' });

/** The signed-in person (`GET /console/api/session`). */
export const ConsoleUserSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string().optional() })
  .meta({ id: 'ConsoleUser', description: 'The signed-in person' });
export type ConsoleUser = z.infer<typeof ConsoleUserSchema>;

/** One entry of `GET /console/api/knowledge-bases`. */
export const KnowledgeBaseSummarySchema = z
  .object({ id: z.string(), name: z.string(), role: RoleSchema })
  .meta({ id: 'KnowledgeBaseSummary', description: 'A knowledge base the person is a member of, with their role' });
export type KnowledgeBaseSummary = z.infer<typeof KnowledgeBaseSummarySchema>;

/** `GET /console/api/knowledge-bases/{kbId}`: the knowledge base and what the person may do there. */
export const KnowledgeBaseDetailSchema = KnowledgeBaseSummarySchema.extend({
  can_issue_tokens: z.boolean(),
  can_manage_members: z.boolean(),
  can_edit_documents: z.boolean().meta({ description: 'Whether the person may add, change and remove documents (editors and owners)' }),
  token_ttl_cap_minutes: z.number().int().meta({ description: 'Longest token lifetime the server accepts, minutes' }),
  token_ttl_default_minutes: z.number().int().meta({ description: 'Lifetime preselected in the form, minutes' }),
}).meta({ id: 'KnowledgeBaseDetail', description: 'A knowledge base and what the person may do there' });
export type KnowledgeBaseDetail = z.infer<typeof KnowledgeBaseDetailSchema>;

/** One document the person can read (`GET …/documents`). */
export const ConsoleDocumentSchema = z
  .object({
    doc_id: z.string(),
    title: z.string(),
    visibility: VisibilitySchema,
    readers: z.array(z.string()).optional().meta({ description: 'User ids of the readers of a `restricted` document' }),
    quotable: z.boolean().optional(),
    passages: z.number().int().optional(),
    updated_at: timestamp().optional(),
  })
  .meta({ id: 'ConsoleDocument', description: 'A document the person can read' });
export type ConsoleDocument = z.infer<typeof ConsoleDocumentSchema>;


/** `PUT …/documents/{docId}`: a document's source and who may read it. */
export const DocumentRequestSchema = z
  .object({
    content: z.string().min(1, { error: 'content: the document source is empty' }).optional().meta({
      description: 'The source as text: markdown (front matter and site-generator markup allowed), HTML or plain text, as the id\'s extension says',
    }),
    content_base64: z
      .base64({ error: 'content_base64: not base64' })
      .min(1, { error: 'content_base64: the document source is empty' })
      .optional()
      .meta({ description: 'The source\'s bytes, base64: for a PDF (`.pdf`), or a text format sent as a file' }),
    visibility: VisibilitySchema,
    readers: z.array(z.string().min(1)).max(1000).optional().meta({ description: 'User ids of the readers of a `restricted` document; each must be a member' }),
    quotable: z.boolean().optional().meta({ description: 'Whether its passages may be quoted in citations (default true)' }),
  })
  .refine((body) => (body.content === undefined) !== (body.content_base64 === undefined), {
    error: 'Give the source as content (text) or content_base64 (bytes), one of them',
  })
  .meta({ id: 'DocumentRequest', description: 'A document to add or replace: its source as `content` or `content_base64`' });
export type DocumentRequest = z.infer<typeof DocumentRequestSchema>;

/** `PATCH …/documents/{docId}`: who may read a document and whether it may be quoted. */
export const DocumentAccessRequestSchema = z
  .object({
    visibility: VisibilitySchema,
    readers: z.array(z.string().min(1)).max(1000).optional().meta({ description: 'User ids of the readers of a `restricted` document; each must be a member' }),
    quotable: z.boolean().optional().meta({ description: 'Whether its passages may be quoted in citations (default true)' }),
  })
  .meta({ id: 'DocumentAccessRequest', description: "A document's new access" });
export type DocumentAccessRequest = z.infer<typeof DocumentAccessRequestSchema>;

/** The answer to `PUT …/documents/{docId}`. */
export const StoredDocumentSchema = z
  .object({
    doc_id: z.string(),
    outcome: z.enum(['created', 'updated', 'unchanged']),
    title: z.string(),
    visibility: VisibilitySchema,
    quotable: z.boolean(),
    passages: z.number().int(),
    updated_at: timestamp(),
  })
  .meta({ id: 'StoredDocument', description: 'The document as stored' });
export type StoredDocument = z.infer<typeof StoredDocumentSchema>;



/** One file of an upload: the document it becomes and its source, as `PUT …/documents/{docId}` takes them. */
export const UploadFileSchema = z
  .object({
    doc_id: z.string().min(1).meta({ description: "The document's id, a relative path such as `guides/setup.md`; its extension picks the format" }),
    content: DocumentRequestSchema.shape.content,
    content_base64: DocumentRequestSchema.shape.content_base64,
  })
  .refine((file) => (file.content === undefined) !== (file.content_base64 === undefined), {
    error: 'Give the source as content (text) or content_base64 (bytes), one of them',
  })
  .meta({ id: 'UploadFile', description: 'A file to add or replace: its document id and its source as `content` or `content_base64`' });
export type UploadFile = z.infer<typeof UploadFileSchema>;

/** `POST …/uploads`: files to index as a job, and who may read them. */
export const UploadRequestSchema = z
  .object({
    files: z.array(UploadFileSchema).min(1).max(MAX_UPLOAD_FILES).meta({ description: `The files, indexed in this order (1 to ${MAX_UPLOAD_FILES}); each id at most once` }),
    visibility: VisibilitySchema,
    readers: z.array(z.string().min(1)).max(1000).optional().meta({ description: 'User ids of the readers of `restricted` files; each must be a member' }),
    quotable: z.boolean().optional().meta({ description: 'Whether their passages may be quoted in citations (default true)' }),
  })
  .meta({ id: 'UploadRequest', description: 'Files to upload, with their access; at most 25 MiB of JSON' });
export type UploadRequest = z.input<typeof UploadRequestSchema>;

/** What became of one file of an upload. */
export const UploadFileResultSchema = z
  .object({
    doc_id: z.string(),
    outcome: z.enum(['created', 'updated', 'unchanged', 'failed']),
    reason: z.string().optional().meta({ description: 'Why it failed; the knowledge base kept what it had for this id' }),
    passages: z.number().int().optional().meta({ description: "The stored document's passages (not when failed)" }),
  })
  .meta({ id: 'UploadFileResult', description: 'The outcome of one uploaded file' });
export type UploadFileResult = z.infer<typeof UploadFileResultSchema>;

/** An upload job (`POST …/uploads`, `GET …/uploads/{uploadId}`). */
export const UploadJobSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'succeeded', 'failed']).meta({
      description: '`succeeded`: every file has its outcome (some may have failed); `failed`: the job stopped (the store failed), see `error`',
    }),
    started_by: z.string().meta({ description: 'Email of who started it' }),
    started_at: timestamp(),
    finished_at: timestamp().optional(),
    files: z.array(z.string()).meta({ description: "The files' document ids, in order (those of documents you cannot read left out, unless you started it)" }),
    hidden: z.number().int().optional().meta({ description: 'Files left out because they are documents you cannot read (someone else started it)' }),
    progress: z
      .object({
        done: z.number().int().meta({ description: 'Files with an outcome' }),
        total: z.number().int(),
        doc_id: z.string().optional().meta({ description: 'The file being indexed, or the last one indexed' }),
      })
      .meta({ description: 'How far it is' }),
    results: z.array(UploadFileResultSchema).meta({ description: 'Each file\'s outcome so far, as they end (files refused up front first)' }),
    error: z.string().optional().meta({ description: 'Why the job stopped' }),
  })
  .meta({ id: 'UploadJob', description: 'An upload of files running on the server, or finished' });
export type UploadJob = z.infer<typeof UploadJobSchema>;

/** `GET …/uploads`. */
export const UploadJobListSchema = z
  .object({ uploads: z.array(UploadJobSchema).meta({ description: 'Newest first: those running and the last ones finished' }) })
  .meta({ id: 'UploadJobList', description: "A knowledge base's uploads" });
export type UploadJobList = z.infer<typeof UploadJobListSchema>;

/** One member of a knowledge base (`GET …/members`). */
export const ConsoleMemberSchema = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: RoleSchema,
    pending: z.boolean().optional().meta({ description: 'true for a person invited who has not set a password yet; omitted otherwise' }),
  })
  .meta({ id: 'ConsoleMember', description: 'A member of the knowledge base' });
export type ConsoleMember = z.infer<typeof ConsoleMemberSchema>;

/** `PUT …/members/{userId}`: the member's new role. */
export const RoleRequestSchema = z.object({ role: RoleSchema }).meta({ id: 'RoleRequest', description: 'A member\'s new role' });
export type RoleRequest = z.infer<typeof RoleRequestSchema>;

/** `POST …/invitations`: the person to invite and their role. */
export const InvitationRequestSchema = z
  .object({
    email: z.string().trim().max(320).pipe(z.email({ error: 'not an email address' })),
    role: RoleSchema,
  })
  .meta({ id: 'InvitationRequest', description: 'An email address to invite, with the role to give' });
export type InvitationRequest = z.infer<typeof InvitationRequestSchema>;

/**
 * The answer to `POST …/invitations` and `POST …/members/{userId}/password-link`:
 * the member added, and the one-time set-password link when the person has
 * no password yet. No mail is sent: the owner passes the link on.
 */
export const InvitationSchema = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: RoleSchema,
    pending: z.boolean().meta({ description: 'Whether the person still has to set a password (false: their account has one; no link needed)' }),
    set_password_url: z.string().optional().meta({
      description: 'The one-time link where the person chooses a password, shown this once; earlier links of theirs stop working. Absent when no link was made',
    }),
    expires_at: timestamp().optional().meta({ description: 'When the link stops working (7 days)' }),
  })
  .meta({ id: 'Invitation', description: 'A member added by invitation, with their set-password link when they need one' });
export type Invitation = z.infer<typeof InvitationSchema>;

/** `POST /console/api/set-password/check`: a set-password link's secret. */
export const PasswordLinkCheckRequestSchema = z
  .object({ token: z.string().min(1).max(200) })
  .meta({ id: 'PasswordLinkCheckRequest', description: "A set-password link's secret (the part after `#/set-password/`)" });
export type PasswordLinkCheckRequest = z.infer<typeof PasswordLinkCheckRequestSchema>;

/** The answer to `POST /console/api/set-password/check`: whose password the link sets. */
export const PasswordLinkSchema = z
  .object({ email: z.string(), expires_at: timestamp() })
  .meta({ id: 'PasswordLink', description: 'A usable set-password link: the account it is for and when it expires' });
export type PasswordLink = z.infer<typeof PasswordLinkSchema>;

/** `POST /console/api/set-password`: set the first password through a link, and sign in. */
export const SetPasswordRequestSchema = PasswordLinkCheckRequestSchema.extend({
  password: z.string().min(1).meta({ description: '12 to 1024 characters' }),
}).meta({ id: 'SetPasswordRequest', description: "A set-password link's secret and the password chosen" });
export type SetPasswordRequest = z.infer<typeof SetPasswordRequestSchema>;

/** A widget token as listed: never the secret, never its hash. */
export const ConsoleTokenSchema = z
  .object({
    id: z.string(),
    status: z.enum(TOKEN_STATUSES),
    issuer: z.string().meta({ description: 'Email of the issuer, or "(removed user)"' }),
    allowed_origins: z.array(z.string()),
    scope: z.array(VisibilitySchema),
    purpose: z.enum(TOKEN_PURPOSES).meta({
      description:
        "`embed`: for customers' pages; `preview`: the Developers tab's live preview (console origin only, 10 minutes); `demo`: the demo page's. " +
        'Preview and demo tokens are reused by their holder while valid and deleted once expired; embed tokens stay listed.',
    }),
    created_at: timestamp(),
    expires_at: timestamp(),
    revoked_at: timestamp().optional(),
    last_used_at: timestamp().optional(),
  })
  .meta({ id: 'ConsoleToken', description: 'A widget token as listed: never the secret' });
export type ConsoleToken = z.infer<typeof ConsoleTokenSchema>;

/** A token just issued: the secret (shown once) and the ready-to-paste snippet. */
export const IssuedTokenSchema = ConsoleTokenSchema.extend({
  token: z.string().meta({ description: 'The secret `kbw_…` token, shown this once' }),
  snippet: z.string().meta({ description: 'The script tag and element to paste into a page' }),
}).meta({ id: 'IssuedToken', description: 'A token just issued' });
export type IssuedToken = z.infer<typeof IssuedTokenSchema>;

/** A preview token: allowed only on the console's own origin, for 10 minutes. */
export const PreviewTokenSchema = ConsoleTokenSchema.extend({
  token: z.string().meta({ description: 'The secret `kbw_…` token' }),
}).meta({ id: 'PreviewToken', description: "A token for the Developers tab's live preview" });
export type PreviewToken = z.infer<typeof PreviewTokenSchema>;

const scopeField = z
  .array(VisibilitySchema)
  .min(1)
  .optional()
  .meta({ description: 'Visibilities the token reaches, within what its issuer can read (default: public)' });

/** `POST …/tokens`: what the Developers tab sends to issue a token. */
export const IssueTokenRequestSchema = z
  .object({
    allowed_origins: z.array(z.string().max(300)).max(50, { error: 'At most 50 allowed origins' }).meta({
      description: 'Exact origins (`https://shop.example.com`) or subdomain patterns (`https://*.example.com`); none: server-only',
    }),
    ttl_minutes: z.number().int().min(1).optional().meta({ description: "Lifetime in minutes, at most the knowledge base's `token_ttl_cap_minutes`" }),
    scope: scopeField,
  })
  .meta({ id: 'IssueTokenRequest', description: 'A token to issue' });
export type IssueTokenRequest = z.infer<typeof IssueTokenRequestSchema>;

/** `POST …/tokens/preview`: the preview token's scope. */
export const PreviewTokenRequestSchema = z.object({ scope: scopeField }).meta({ id: 'PreviewTokenRequest', description: 'A preview token to issue' });
export type PreviewTokenRequest = z.infer<typeof PreviewTokenRequestSchema>;

/** `POST /console/api/session`: sign in. */
export const SignInRequestSchema = z
  .object({ email: z.string().trim().min(1).max(320), password: z.string().min(1) })
  .meta({ id: 'SignInRequest', description: 'Email and password' });
export type SignInRequest = z.infer<typeof SignInRequestSchema>;

/** `GET /console/api/session`. */
export const SessionSchema = z.object({ user: ConsoleUserSchema }).meta({ id: 'Session', description: 'Who is signed in' });
export type Session = z.infer<typeof SessionSchema>;

/** `GET /console/api/knowledge-bases`. */
export const KnowledgeBaseListSchema = z
  .object({ knowledge_bases: z.array(KnowledgeBaseSummarySchema) })
  .meta({ id: 'KnowledgeBaseList', description: "Knowledge bases with the person's role" });
export type KnowledgeBaseList = z.infer<typeof KnowledgeBaseListSchema>;

/** `GET …/documents`. */
export const DocumentListSchema = z.object({ documents: z.array(ConsoleDocumentSchema) }).meta({ id: 'DocumentList', description: 'Documents the person can read' });
export type DocumentList = z.infer<typeof DocumentListSchema>;

/** `GET …/members`. */
export const MemberListSchema = z.object({ members: z.array(ConsoleMemberSchema) }).meta({ id: 'MemberList', description: 'Members and roles' });
export type MemberList = z.infer<typeof MemberListSchema>;

/** The answer to `PUT …/members/{userId}`. */
export const MemberRoleSchema = z.object({ user_id: z.string(), role: RoleSchema }).meta({ id: 'MemberRole', description: 'The member\'s new role' });
export type MemberRole = z.infer<typeof MemberRoleSchema>;


/**
 * `GET …/tokens`'s query: filters (combined with AND) and the page. Unknown
 * parameters are refused, so a misspelt filter is not silently ignored.
 */
export const TokenListQuerySchema = z
  .strictObject({
    status: z.enum(TOKEN_STATUSES, { error: `must be one of ${TOKEN_STATUSES.join(', ')}` }).optional().meta({ description: 'Only tokens with this status now' }),
    origin: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .meta({ description: 'Only tokens one of whose allowed origins contains this text, case-insensitively (`localhost`, `https://docs.example.com`)' }),
    purpose: z.enum(TOKEN_PURPOSES, { error: `must be one of ${TOKEN_PURPOSES.join(', ')}` }).optional().meta({ description: 'Only tokens of this purpose' }),
    limit: z.coerce
      .number({ error: `must be an integer from 1 to ${MAX_TOKEN_PAGE_LIMIT}` })
      .int({ error: `must be an integer from 1 to ${MAX_TOKEN_PAGE_LIMIT}` })
      .min(1, { error: `must be an integer from 1 to ${MAX_TOKEN_PAGE_LIMIT}` })
      .max(MAX_TOKEN_PAGE_LIMIT, { error: `must be an integer from 1 to ${MAX_TOKEN_PAGE_LIMIT}` })
      .default(DEFAULT_TOKEN_PAGE_LIMIT)
      .meta({ description: `Tokens a page, 1 to ${MAX_TOKEN_PAGE_LIMIT}` }),
    cursor: z.string().max(200).optional().meta({ description: 'The `next_cursor` of the previous page, with the same filters' }),
  })
  .meta({ description: 'Filters and page of the token list (query parameters, so not among the named schemas)' });
export type TokenListQuery = z.input<typeof TokenListQuerySchema>;

/** `GET …/tokens`: a page of tokens, newest first. */
export const TokenListSchema = z
  .object({
    tokens: z.array(ConsoleTokenSchema).meta({ description: 'Newest first (then by id, descending)' }),
    total: z.number().int().meta({ description: 'Tokens matching the filters, all pages together' }),
    next_cursor: z.string().optional().meta({ description: 'Present when more tokens follow: pass it as `cursor`, with the same filters' }),
  })
  .meta({ id: 'TokenList', description: 'A page of widget tokens, never their secrets' });
export type TokenList = z.infer<typeof TokenListSchema>;

/** One visitor's rating or problem report, as an editor reads it (`GET …/feedback`). */
export const ConsoleFeedbackSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(['rating', 'problem']),
    created_at: timestamp(),
    question: z.string(),
    provenance: z.enum(PROVENANCES),
    rating: z.enum(['up', 'down']).optional().meta({ description: 'Ratings only' }),
    reason: z.string().optional().meta({ description: "A rating's reason (optional, `down` only) or a problem report's" }),
    comment: z.string().optional(),
    passages: z
      .array(z.object({ doc_id: z.string(), title: z.string() }))
      .meta({ description: 'The cited (rating) or reported (problem) passages whose documents you can read now, in order' }),
    unlisted_passages: z.number().int().meta({ description: 'Passages left out: their document was removed since, or you may not read it' }),
  })
  .meta({ id: 'ConsoleFeedback', description: "A visitor's rating or problem report" });
export type ConsoleFeedback = z.infer<typeof ConsoleFeedbackSchema>;

/** A page of `GET …/feedback`, newest first. */
export const FeedbackPageSchema = z
  .object({
    feedback: z.array(ConsoleFeedbackSchema),
    next_cursor: z.string().optional().meta({ description: 'Present when more records follow: pass it as `cursor`' }),
  })
  .meta({ id: 'FeedbackPage', description: 'A page of feedback' });
export type FeedbackPage = z.infer<typeof FeedbackPageSchema>;

/** `GET …/insights`: what visitors asked over the last days and where the documentation falls short. */
export const InsightsSchema = z
  .object({
    days: z.number().int().meta({ description: 'Days covered, ending today (UTC)' }),
    questions: z.number().int(),
    abstained: z.number().int(),
    abstention_rate: z.number().meta({ description: 'abstained / questions; 0 when none was asked' }),
    per_day: z
      .array(z.object({ date: z.string().meta({ description: 'YYYY-MM-DD (UTC)' }), questions: z.number().int(), abstained: z.number().int() }))
      .meta({ description: 'Every day of the period, oldest first, days without questions included' }),
    coverage_gaps: z
      .array(
        z.object({
          question: z.string().meta({ description: 'The wording asked most often' }),
          count: z.number().int(),
          questions: z.array(z.string()).meta({ description: 'Its distinct wordings, most asked first (at most 5)' }),
          last_asked_at: timestamp(),
          curated_answer_id: z
            .number()
            .int()
            .optional()
            .meta({ description: 'A curated answer that now answers the most asked wording (`provenance: qa_shortcut`), if one does' }),
        }),
      )
      .meta({ description: 'Questions abstained on, grouped by similarity, most asked first (at most 50)' }),
    downvoted: z
      .array(
        z.object({
          question: z.string(),
          asked_at: timestamp(),
          reason: z.string().optional(),
          cited_doc_ids: z.array(z.string()).meta({ description: 'Documents the answer cited that the reader can read' }),
        }),
      )
      .meta({ description: 'Answers rated 👎, newest first (at most 50)' }),
    problem_reports: z
      .array(
        z.object({
          question: z.string().meta({ description: 'The question whose answer cited the passage' }),
          reported_at: timestamp(),
          reason: z.string().meta({ description: 'incorrect, out_of_date, broken_link, unrelated or other (the widget\'s problem reasons)' }),
          comment: z.string().optional(),
          passage: z
            .object({
              doc_id: z.string(),
              title: z.string(),
              headings: z.array(z.string()).optional().meta({ description: "The passage's heading path; absent once the document changed since the report" }),
              text: z.string().optional().meta({ description: "The passage's text as reported; absent once the document changed since the report" }),
              url: z.string().optional().meta({ description: 'Where the passage is published, when the knowledge base has a site' }),
            })
            .optional()
            .meta({ description: 'The reported passage, located by its source_span; absent when its document was removed or you may not read it' }),
        }),
      )
      .meta({ description: "Visitors' problem reports on cited passages, newest first (at most 50)" }),
  })
  .meta({ id: 'Insights', description: "Visitors' questions, abstentions, coverage gaps and 👎 answers over a period" });
export type Insights = z.infer<typeof InsightsSchema>;

/** One source of a curated answer: a document and, optionally, a heading inside it whose passage is cited. */
export const CuratedSourceSchema = z
  .object({
    doc_id: z.string().min(1).max(1000),
    heading: z.string().trim().min(1).max(1000).optional().meta({ description: 'A heading of the document (as written there); its first passage is cited. Absent: the document\'s first passage' }),
  })
  .meta({ id: 'CuratedSource', description: 'A document (and heading) a curated answer cites' });
export type CuratedSource = z.infer<typeof CuratedSourceSchema>;

/** `POST …/curated-answers` and `PUT …/curated-answers/{id}`: a question and the answer given to it. */
export const CuratedAnswerRequestSchema = z
  .object({
    question: z.string().trim().min(1).max(2000),
    answer: z
      .string()
      .trim()
      .min(1)
      .max(8000)
      .meta({ description: '`[n]` markers cite the n-th source; without markers, markers for every source are appended' }),
    sources: z.array(CuratedSourceSchema).max(10).default([]),
  })
  .meta({ id: 'CuratedAnswerRequest', description: 'A curated answer to add or the new text of one' });
export type CuratedAnswerRequest = z.input<typeof CuratedAnswerRequestSchema>;

/** A curated answer (`qa_shortcut`) as listed. */
export const CuratedAnswerSchema = z
  .object({
    id: z.number().int().meta({ description: 'Stable until the pairs are replaced as a whole by `kb faq import`' }),
    question: z.string(),
    answer: z.string(),
    sources: z.array(CuratedSourceSchema.extend({ title: z.string().meta({ description: "The document's title" }) })),
  })
  .meta({ id: 'CuratedAnswer', description: 'A curated question and answer, given as the answer (`provenance: qa_shortcut`) to questions worded alike' });
export type CuratedAnswer = z.infer<typeof CuratedAnswerSchema>;

/** `GET …/curated-answers`. */
export const CuratedAnswerListSchema = z
  .object({
    curated_answers: z.array(CuratedAnswerSchema).meta({ description: 'In the order they are matched: imported first, then added' }),
    hidden: z.number().int().meta({ description: 'Curated answers left out because they cite a document the person cannot read' }),
  })
  .meta({ id: 'CuratedAnswerList', description: 'The curated answers the person can read' });
export type CuratedAnswerList = z.infer<typeof CuratedAnswerListSchema>;

/** `GET …/headings?doc_id=`: the headings a curated answer may cite in one document. */
export const HeadingListSchema = z
  .object({ doc_id: z.string(), headings: z.array(z.string()).meta({ description: 'Distinct headings in document order' }) })
  .meta({ id: 'HeadingList', description: "A document's headings" });
export type HeadingList = z.infer<typeof HeadingListSchema>;



/** `POST …/imports`: a website to import, its pages' access, and the crawl's limits. */
export const ImportRequestSchema = z
  .object({
    kind: z.enum(['pages', 'sitemap']).meta({ description: '`pages`: the URLs and the pages they link to below their folder; `sitemap`: what one sitemap (or sitemap index) lists' }),
    urls: z
      .array(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }))
      .min(1)
      .max(MAX_IMPORT_URLS)
      .meta({ description: 'Pages of one site, or the one sitemap URL' }),
    visibility: VisibilitySchema,
    readers: z.array(z.string().min(1)).max(1000).optional().meta({ description: 'User ids of the readers of `restricted` pages; each must be a member' }),
    quotable: z.boolean().optional(),
    max_pages: z.number().int().min(1).max(500).optional().meta({ description: 'Most pages fetched (default 500)' }),
    max_depth: z.number().int().min(0).max(10).optional().meta({ description: 'Link hops followed from the URLs (`pages` only; default 3)' }),
    resync_hours: z
      .number()
      .int()
      .min(0)
      .max(MAX_RESYNC_HOURS)
      .optional()
      .meta({
        description:
          'Import again every this many hours (the console offers 24 and 168), asking for each page conditionally (If-None-Match, If-Modified-Since) and removing pages gone; 0 or absent: once. The same kind and URLs set up again update the one source',
      }),
  })
  .refine((request) => request.kind === 'pages' || request.urls.length === 1, { path: ['urls'], message: 'a sitemap import takes exactly one URL, the sitemap' })
  .meta({ id: 'ImportRequest', description: 'A website import to start' });
export type ImportRequest = z.input<typeof ImportRequestSchema>;

/** An import job as listed (`GET …/imports`). */
export const ImportJobSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['pages', 'sitemap']),
    urls: z.array(z.string()),
    status: z.enum(['running', 'succeeded', 'failed']),
    started_by: z.string().meta({ description: 'Email of who started it (a scheduled sync: who set up its source)' }),
    source_id: z.string().optional().meta({ description: 'The re-synced source it syncs (`GET …/import-sources`); absent for a one-off import' }),
    started_at: timestamp(),
    finished_at: timestamp().optional(),
    progress: z
      .object({
        phase: z.enum(['crawling', 'indexing']).meta({ description: '`crawling`: fetching pages, no total yet; `indexing`: storing them one by one' }),
        done: z.number().int(),
        total: z.number().int().optional(),
        url: z.string().optional().meta({ description: 'The page indexed last' }),
      })
      .meta({ description: 'How far it is' }),
    result: z
      .object({
        site: z.string(),
        created: z.array(z.string()),
        updated: z.array(z.string()),
        unchanged: z.array(z.string()),
        removed: z.array(z.string()),
        skipped: z.array(z.object({ url: z.string(), reason: z.string() })),
        failed: z.array(z.object({ url: z.string(), doc_id: z.string(), reason: z.string() })),
        truncated: z.boolean().meta({ description: 'A limit (pages, bytes) stopped the crawl' }),
        hidden: z.number().int().optional().meta({ description: 'Document ids left out because they are documents you cannot read (someone else started it)' }),
      })
      .optional()
      .meta({ description: 'Document ids by outcome, once it succeeded' }),
    error: z.string().optional().meta({ description: 'Why it failed' }),
  })
  .meta({ id: 'ImportJob', description: 'A website import running on the server, or finished' });
export type ImportJob = z.infer<typeof ImportJobSchema>;

/** `GET …/imports`. */
export const ImportJobListSchema = z
  .object({ imports: z.array(ImportJobSchema).meta({ description: 'Newest first: those running and the last ones finished' }) })
  .meta({ id: 'ImportJobList', description: "A knowledge base's website imports" });
export type ImportJobList = z.infer<typeof ImportJobListSchema>;

/** How a source's last sync ended. */
export const ImportSyncSchema = z
  .object({
    status: z.enum(['succeeded', 'failed']),
    finished_at: timestamp(),
    created: z.number().int().optional(),
    updated: z.number().int().optional(),
    unchanged: z.number().int().optional(),
    removed: z.number().int().optional(),
    failed: z.number().int().optional(),
    error: z.string().optional().meta({ description: 'Why it failed' }),
  })
  .meta({ id: 'ImportSync', description: "A re-sync's outcome: documents counted by outcome, or why it failed" });

/** A website imported again on a schedule (`GET …/import-sources`). */
export const ImportSourceSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['pages', 'sitemap']),
    urls: z.array(z.string()),
    visibility: VisibilitySchema,
    readers: z.array(z.string()).meta({ description: 'User ids of the readers of `restricted` pages' }),
    quotable: z.boolean(),
    max_pages: z.number().int(),
    max_depth: z.number().int(),
    resync_hours: z.number().int().meta({ description: 'Hours between two syncs' }),
    created_by: z.string().meta({ description: 'Email of who set it up: syncs import with their access' }),
    created_at: timestamp(),
    next_sync_at: timestamp(),
    last_sync: ImportSyncSchema.optional(),
  })
  .meta({ id: 'ImportSource', description: 'A website the knowledge base imports again on a schedule' });
export type ImportSource = z.infer<typeof ImportSourceSchema>;

/** `GET …/import-sources`. */
export const ImportSourceListSchema = z
  .object({ sources: z.array(ImportSourceSchema).meta({ description: 'By next sync' }) })
  .meta({ id: 'ImportSourceList', description: "A knowledge base's re-synced websites" });
export type ImportSourceList = z.infer<typeof ImportSourceListSchema>;

/** The schemas named in the OpenAPI document's `components.schemas`, by their `id`. */
export const CONSOLE_SCHEMAS = [
  ConsoleUserSchema,
  KnowledgeBaseSummarySchema,
  KnowledgeBaseDetailSchema,
  ConsoleDocumentSchema,
  DocumentRequestSchema,
  DocumentAccessRequestSchema,
  StoredDocumentSchema,
  UploadFileSchema,
  UploadRequestSchema,
  UploadFileResultSchema,
  UploadJobSchema,
  UploadJobListSchema,
  ConsoleMemberSchema,
  RoleRequestSchema,
  InvitationRequestSchema,
  InvitationSchema,
  PasswordLinkCheckRequestSchema,
  PasswordLinkSchema,
  SetPasswordRequestSchema,
  ConsoleTokenSchema,
  IssuedTokenSchema,
  PreviewTokenSchema,
  IssueTokenRequestSchema,
  PreviewTokenRequestSchema,
  SignInRequestSchema,
  SessionSchema,
  KnowledgeBaseListSchema,
  DocumentListSchema,
  MemberListSchema,
  MemberRoleSchema,
  TokenListSchema,
  ConsoleFeedbackSchema,
  FeedbackPageSchema,
  InsightsSchema,
  CuratedSourceSchema,
  CuratedAnswerRequestSchema,
  CuratedAnswerSchema,
  CuratedAnswerListSchema,
  HeadingListSchema,
  ImportRequestSchema,
  ImportJobSchema,
  ImportJobListSchema,
  ImportSyncSchema,
  ImportSourceSchema,
  ImportSourceListSchema,
] as const;
