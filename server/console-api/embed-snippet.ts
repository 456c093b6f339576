/**
 * The ready-to-paste snippet the console API returns with a token it issued
 * (`POST /console/api/knowledge-bases/{kbId}/tokens`): the widget's script
 * tag, the element with the token, and a `tokenProvider` (docs/widget.md
 * "Keeping the token fresh") so the page keeps working after the token expires. Without
 * one, a pasted embed stops answering once its token's lifetime is over.
 */

/** Where the snippet's `tokenProvider` fetches a fresh token: a URL of the customer's own site, served by their back end. */
export const SNIPPET_TOKEN_URL = '/kb-widget-token';

/** What the snippet is built from. */
export interface EmbedSnippetInput {
  /** Public base URL of the API, no trailing slash (`https://kb.example.com`). */
  baseUrl: string;
  kbId: string;
  /** The secret `kbw_…` token. */
  token: string;
  /** When the token expires, epoch ms. */
  expiresAt: number;
  /** The token's lifetime, minutes. */
  ttlMinutes: number;
}

/**
 * @returns HTML: a comment saying when the token expires and how to renew
 *   it, the script tag, `<kb-widget>` with the token, and a script setting
 *   its `tokenProvider` to fetch {@link SNIPPET_TOKEN_URL} (values escaped
 *   for HTML attributes)
 */
export function embedSnippet(input: EmbedSnippetInput): string {
  const baseUrl = escapeAttribute(input.baseUrl);
  const minutes = input.ttlMinutes === 1 ? '1 minute' : `${input.ttlMinutes} minutes`;
  return [
    `<!-- This token expires at ${new Date(input.expiresAt).toISOString()}, ${minutes} after it was issued.`,
    `     After that the widget calls its tokenProvider for a fresh token. Have your back end issue one`,
    `     (the kb CLI's "token issue", or the console API) and serve it at ${SNIPPET_TOKEN_URL} on your site. -->`,
    `<script src="${baseUrl}/widget/kb-widget.js"></script>`,
    `<kb-widget base-url="${baseUrl}" kb-id="${escapeAttribute(input.kbId)}" token="${escapeAttribute(input.token)}"></kb-widget>`,
    '<script>',
    "  document.querySelector('kb-widget').tokenProvider = async () => {",
    `    const response = await fetch('${SNIPPET_TOKEN_URL}', { cache: 'no-store' });`,
    "    if (!response.ok) throw new Error('No fresh widget token: ' + response.status);",
    '    return response.text();',
    '  };',
    '</script>',
  ].join('\n');
}

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
