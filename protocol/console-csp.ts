/**
 * Content-Security-Policy of the console page (CSP Level 3): the server
 * sends it with `/console` (server/console-api/console-page.ts), and the
 * console's code must run under it. In a module of its own under protocol/,
 * free of Node, DOM and zod imports, so the console's browser tests enforce
 * the very policy the server sends (console/testing/console-style-policy.ts)
 * without importing server code.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');
