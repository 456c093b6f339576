/**
 * The token endpoint a customer's site pastes (docs/widget.md "Your site's token endpoint"): a widget
 * token lasts minutes (60 by default, at most the knowledge base's
 * `token_ttl_cap_minutes`), so a page that outlives its token needs its own
 * back end to hand the widget a fresh one. The snippet the console gives
 * sets the widget's `tokenProvider` to fetch `GET /kb-widget-token` on the
 * site; this module writes that endpoint as code to paste, for Express and
 * as a serverless function (Netlify Functions, Web-standard `Request` /
 * `Response`) for a static site.
 *
 * Both share one function: it signs in to the console API with an editor's
 * account (`KB_EMAIL`, `KB_PASSWORD` in the site's environment, never in the
 * page), issues a token for the site's origin (`POST
 * /console/api/knowledge-bases/{kbId}/tokens`, sent with the service's
 * `Origin`, which the console's cross-site check requires), signs out, and
 * reuses the token until 10 minutes before it expires, so a busy site makes
 * one token an hour, not one per page view. docs/widget.md "Your site's
 * token endpoint" shows the same code (token-endpoint-code.test.ts checks it and
 * runs it against a real server).
 */

/** What the endpoint's code is written for. */
export interface TokenEndpointTarget {
  /** Origin of the kb-widget service, e.g. `https://kb.example.com`. */
  serviceOrigin: string;
  /** Knowledge base the tokens are bound to. */
  kbId: string;
  /** The site's origin, the one allowed origin of each token, e.g. `https://www.example.com`. */
  siteOrigin: string;
  /** Lifetime of each token, minutes (at most the knowledge base's cap). */
  ttlMinutes: number;
}

/** A JavaScript string literal in single quotes. */
function quoted(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** The code shared by both endpoints: settings and `freshWidgetToken()`, an ES module's top. */
function freshWidgetTokenCode(target: TokenEndpointTarget): string {
  return `// KB_EMAIL and KB_PASSWORD: an editor of the knowledge base, kept for this endpoint.
const SERVICE = ${quoted(target.serviceOrigin)};
const KB_ID = ${quoted(target.kbId)};
const SITE_ORIGIN = ${quoted(target.siteOrigin)};
let cached; // { token, expiresAt }, reused until 10 minutes before it expires

/** A widget token for SITE_ORIGIN, issued by the kb-widget console API. */
async function freshWidgetToken() {
  if (cached && cached.expiresAt - Date.now() > 10 * 60_000) return cached.token;
  const headers = { 'Content-Type': 'application/json', Origin: SERVICE };
  const signIn = await fetch(\`\${SERVICE}/console/api/session\`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: process.env.KB_EMAIL, password: process.env.KB_PASSWORD }),
  });
  if (!signIn.ok) throw new Error(\`Sign-in to \${SERVICE} failed: \${signIn.status}\`);
  const session = { ...headers, Cookie: signIn.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ') };
  try {
    const issued = await fetch(\`\${SERVICE}/console/api/knowledge-bases/\${KB_ID}/tokens\`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ allowed_origins: [SITE_ORIGIN], ttl_minutes: ${target.ttlMinutes} }),
    });
    if (!issued.ok) throw new Error(\`No widget token from \${SERVICE}: \${issued.status}\`);
    const { token, expires_at } = await issued.json();
    cached = { token, expiresAt: Date.parse(expires_at) };
    return token;
  } finally {
    await fetch(\`\${SERVICE}/console/api/session\`, { method: 'DELETE', headers: session });
  }
}`;
}

/**
 * `GET /kb-widget-token` as an Express app's route (Express 4 or 5, Node 20
 * or later): the token as `text/plain`, never cached.
 *
 * @returns an ES module to paste into the site's server
 */
export function expressTokenEndpoint(target: TokenEndpointTarget): string {
  return `import express from 'express';

${freshWidgetTokenCode(target)}

const app = express();
app.get('/kb-widget-token', async (_request, response, next) => {
  try {
    response.set('Cache-Control', 'no-store').type('text/plain').send(await freshWidgetToken());
  } catch (error) {
    next(error);
  }
});
app.listen(process.env.PORT ?? 3000);
`;
}

/**
 * `GET /kb-widget-token` as a serverless function for a static site: a
 * Netlify function (`netlify/functions/kb-widget-token.mjs`; its `config`
 * gives the path), whose default export is a Web-standard handler, so
 * other platforms' runtimes take it with their own file name and routing.
 *
 * @returns an ES module to paste into the site's repository
 */
export function serverlessTokenEndpoint(target: TokenEndpointTarget): string {
  return `// netlify/functions/kb-widget-token.mjs
${freshWidgetTokenCode(target)}

export default async () =>
  new Response(await freshWidgetToken(), { headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' } });

export const config = { path: '/kb-widget-token' };
`;
}
