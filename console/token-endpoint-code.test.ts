import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWidgetFixture, type WidgetFixture } from '../server/testing/widget-fixture.ts';
import { expressTokenEndpoint, serverlessTokenEndpoint, type TokenEndpointTarget } from './token-endpoint-code.ts';

/**
 * The token endpoint the Developers tab and docs/widget.md give: the
 * serverless function run against a real kb-widget server (an editor's
 * account signs in, a token for the site's origin comes back and answers
 * the widget's question from that origin), the Express module valid
 * JavaScript, and docs/widget.md showing both as the tab writes them.
 */
const PASSWORD = 'endpoint password 2026';
const SITE_ORIGIN = 'https://www.example.com';

let fixture: WidgetFixture;
let folder: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { alice: PASSWORD } });
  folder = await mkdtemp(join(tmpdir(), 'kb-token-endpoint-'));
});

afterAll(async () => {
  delete process.env.KB_EMAIL;
  delete process.env.KB_PASSWORD;
  await fixture.close();
  await rm(folder, { recursive: true, force: true });
});

function target(serviceOrigin: string): TokenEndpointTarget {
  return { serviceOrigin, kbId: 'docs', siteOrigin: SITE_ORIGIN, ttlMinutes: 60 };
}

describe('the pasted token endpoint', () => {
  test('serverless function with an editor account: answers a token for the site origin, which the widget API accepts from there', async () => {
    const file = join(folder, 'kb-widget-token.mjs');
    await writeFile(file, serverlessTokenEndpoint(target(fixture.baseUrl)));
    process.env.KB_EMAIL = 'alice@example.com';
    process.env.KB_PASSWORD = PASSWORD;
    const endpoint = (await import(pathToFileURL(file).href)) as { default: () => Promise<Response>; config: { path: string } };

    const response = await endpoint.default();
    const token = await response.text();

    expect([response.headers.get('content-type'), response.headers.get('cache-control'), endpoint.config.path]).toEqual(['text/plain', 'no-store', '/kb-widget-token']);
    expect(token).toMatch(/^kbw_/);
    const answer = await fixture.post('query', { question: 'How do I create a directory?' }, { token, headers: { Origin: SITE_ORIGIN } });
    expect(answer.status).toBe(200);
  });

  test('serverless function with a wrong password: throws, naming the failed sign-in', async () => {
    const file = join(folder, 'kb-widget-token-refused.mjs');
    await writeFile(file, serverlessTokenEndpoint(target(fixture.baseUrl)));
    process.env.KB_EMAIL = 'alice@example.com';
    process.env.KB_PASSWORD = 'not the password';
    const endpoint = (await import(pathToFileURL(file).href)) as { default: () => Promise<Response> };

    await expect(endpoint.default()).rejects.toThrow(`Sign-in to ${fixture.baseUrl} failed: 401`);
  });

  test('Express module: valid JavaScript (node --check)', async () => {
    const file = join(folder, 'server.mjs');
    await writeFile(file, expressTokenEndpoint(target(fixture.baseUrl)));

    await expect(promisify(execFile)(process.execPath, ['--check', file])).resolves.toBeDefined();
  });

  test('docs/widget.md: both endpoints as the Developers tab writes them for kb.example.com', async () => {
    const guide = await readFile(new URL('../docs/widget.md', import.meta.url), 'utf8');
    const example: TokenEndpointTarget = { serviceOrigin: 'https://kb.example.com', kbId: 'support', siteOrigin: SITE_ORIGIN, ttlMinutes: 60 };

    expect(guide.includes(expressTokenEndpoint(example)), 'docs/widget.md shows the Express endpoint').toBe(true);
    expect(guide.includes(serverlessTokenEndpoint(example)), 'docs/widget.md shows the serverless endpoint').toBe(true);
  });
});
