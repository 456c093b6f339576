/**
 * Content-Security-Policy of the console page (CSP Level 3), in a module of
 * its own, free of Node and DOM imports, so the console's browser tests
 * enforce the very policy the server sends (console-page.ts).
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
