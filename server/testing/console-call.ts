import type { WidgetFixture } from './widget-fixture.ts';

/**
 * A console API request as the console makes it, for route tests: to
 * `/console/api/knowledge-bases/{kbId}/{path}` on the fixture, from its own
 * origin, with a signed-in person's cookie (from `fixture.signIn`) and, when
 * given, a JSON body.
 *
 * @param kbId the knowledge base (default `docs`, the fixture's)
 */
export function consoleCall(fixture: Pick<WidgetFixture, 'baseUrl'>, method: string, path: string, cookie: string, body?: unknown, kbId = 'docs'): Promise<Response> {
  return fetch(`${fixture.baseUrl}/console/api/knowledge-bases/${kbId}/${path}`, {
    method,
    headers: { Cookie: cookie, Origin: fixture.baseUrl, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
