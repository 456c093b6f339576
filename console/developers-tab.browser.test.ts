import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { defineKbWidget } from '../widget/define.ts';
import type { KbWidget } from '../widget/kb-widget.ts';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ConsoleToken, KnowledgeBaseDetail, TokenList } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import type { KbDevelopersTab } from './developers-tab.ts';
import { expressTokenEndpoint, serverlessTokenEndpoint } from './token-endpoint-code.ts';
import type { KbWidgetPreview } from './widget-preview.ts';

/**
 * The Developers tab in Chromium against a scripted console API (a `fetch`
 * answering by method and path): client-side origin validation, the reader
 * view, the token shown once with its Copy button, the server's 400 detail,
 * the two-step revoke, the live preview, and axe.
 *
 * The preview's `<kb-widget>` is the real element (defined here, so the
 * preview loads no script) talking to the scripted widget API of
 * widget/testing/scripted-answers.mjs on the page's own origin.
 */
defineKbWidget();
defineConsoleElements();

const OWNER_KB: KnowledgeBaseDetail = {
  id: 'docs',
  name: 'Docs',
  role: 'owner',
  can_issue_tokens: true,
  can_manage_members: true,
  can_edit_documents: true,
  token_ttl_cap_minutes: 120,
  token_ttl_default_minutes: 60,
};
const READER_KB: KnowledgeBaseDetail = { ...OWNER_KB, role: 'reader', can_issue_tokens: false, can_manage_members: false, can_edit_documents: false };

const ACTIVE_TOKEN: ConsoleToken = {
  id: 'tok_1',
  status: 'active',
  issuer: 'owner@example.com',
  allowed_origins: ['https://shop.example.com'],
  scope: ['public'],
  purpose: 'embed',
  created_at: '2026-01-15T12:00:00.000Z',
  expires_at: '2026-01-15T13:00:00.000Z',
};

/** A console API holding a token list; records each request. */
class ScriptedApi {
  tokens: ConsoleToken[] = [];
  requests: { method: string; path: string; body: unknown }[] = [];
  /** Problem answered to the next POST, if any. */
  refuseIssue: { status: number; detail: string } | undefined;
  /** Preview tokens issued so far. */
  previews = 0;

  /** A page of `GET …/tokens` as the server answers it: filtered, newest first, `limit` from the cursor (an offset here). */
  page(query: URLSearchParams): TokenList {
    const status = query.get('status');
    const purpose = query.get('purpose');
    const origin = query.get('origin')?.toLowerCase();
    const matching = this.tokens
      .filter((token) => (status === null || token.status === status) && (purpose === null || token.purpose === purpose))
      .filter((token) => origin === undefined || token.allowed_origins.some((allowed) => allowed.includes(origin)))
      .sort((left, right) => right.created_at.localeCompare(left.created_at) || right.id.localeCompare(left.id));
    const limit = Number(query.get('limit') ?? 20);
    const offset = Number(query.get('cursor') ?? 0);
    const tokens = matching.slice(offset, offset + limit);
    return { tokens, total: matching.length, ...(offset + limit < matching.length ? { next_cursor: String(offset + limit) } : {}) };
  }

  readonly fetch: FetchFunction = async (url, init) => {
    const method = init?.method ?? 'GET';
    const path = url.replace('/console/api/knowledge-bases/docs', '');
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    this.requests.push({ method, path, body });
    if (method === 'GET' && (path === '/tokens' || path.startsWith('/tokens?'))) return Response.json(this.page(new URL(path, location.origin).searchParams));
    if (method === 'POST' && path === '/tokens/preview') {
      if (this.refuseIssue) {
        const { status, detail } = this.refuseIssue;
        return Response.json({ type: 'about:blank', title: 'Forbidden', status, code: 'forbidden', detail }, { status });
      }
      this.previews += 1;
      const request = body as { scope: ConsoleToken['scope'] };
      const token: ConsoleToken = {
        ...ACTIVE_TOKEN,
        id: `tok_preview_${this.previews}`,
        purpose: 'preview',
        allowed_origins: [location.origin],
        scope: request.scope,
      };
      this.tokens = [...this.tokens, token];
      return Response.json({ ...token, token: `kbw_preview_${this.previews}` }, { status: 201 });
    }
    if (method === 'POST' && path === '/tokens') {
      if (this.refuseIssue) {
        const { status, detail } = this.refuseIssue;
        return Response.json({ type: 'about:blank', title: 'Bad Request', status, code: 'invalid_request', detail }, { status });
      }
      const request = body as { allowed_origins: string[]; scope: ConsoleToken['scope'] };
      const token: ConsoleToken = { ...ACTIVE_TOKEN, id: 'tok_new', allowed_origins: request.allowed_origins, scope: request.scope };
      this.tokens = [...this.tokens, token];
      return Response.json(
        { ...token, token: 'kbw_secret_once', snippet: '<script src="http://kb.test/widget/kb-widget.js"></script>' },
        { status: 201 },
      );
    }
    if (method === 'DELETE' && path.startsWith('/tokens/')) {
      const id = path.slice('/tokens/'.length);
      this.tokens = this.tokens.map((token) => (token.id === id ? { ...token, status: 'revoked' } : token));
      return new Response(null, { status: 204 });
    }
    return Response.json({ status: 404, code: 'not_found', detail: `No route ${method} ${path}` }, { status: 404 });
  };
}

async function developersTab(knowledgeBase: KnowledgeBaseDetail, api: ScriptedApi): Promise<KbDevelopersTab> {
  const element = await fixture<KbDevelopersTab>(
    html`<kb-developers-tab .client=${new ConsoleClient({ fetch: api.fetch })} .knowledgeBase=${knowledgeBase}></kb-developers-tab>`,
  );
  await waitUntil(() => !text(element).includes('Loading tokens'), 'the token list loads');
  return element;
}

function root(element: KbDevelopersTab): ShadowRoot {
  return element.shadowRoot!;
}

function text(element: KbDevelopersTab): string {
  return root(element).textContent?.replace(/\s+/g, ' ') ?? '';
}

function button(element: KbDevelopersTab, name: string): HTMLButtonElement | undefined {
  return [...root(element).querySelectorAll('button')].find((candidate) => candidate.textContent?.trim() === name);
}

/** The Copy button named `label` of a `<kb-copyable-text>` in the tab, and that element's status region. */
function copyControl(element: KbDevelopersTab, label: string): { button: HTMLButtonElement; status: Element } {
  for (const copyable of root(element).querySelectorAll('kb-copyable-text')) {
    const found = [...copyable.shadowRoot!.querySelectorAll('button')].find((candidate) => candidate.textContent?.trim() === label);
    if (found) return { button: found, status: copyable.shadowRoot!.querySelector('[role="status"]')! };
  }
  throw new Error(`No "${label}" button in the tab`);
}

/** Replaces `navigator.clipboard.writeText` while `run` runs: `written` collects what it was given; `refuse` makes it reject, as without permission. */
async function withClipboard(refuse: boolean, run: (written: string[]) => Promise<void>): Promise<void> {
  const clipboard = navigator.clipboard;
  const original = clipboard.writeText;
  const written: string[] = [];
  clipboard.writeText = async (value: string) => {
    if (refuse) throw new DOMException('Write permission denied.', 'NotAllowedError');
    written.push(value);
  };
  try {
    await run(written);
  } finally {
    clipboard.writeText = original;
  }
}

async function issue(element: KbDevelopersTab, origins: string): Promise<void> {
  root(element).querySelector<HTMLTextAreaElement>('#allowed-origins')!.value = origins;
  button(element, 'Issue token')!.click();
  await element.updateComplete;
}

describe('kb-developers-tab form', () => {
  it('editor or owner: labelled fields, lifetime 60 with the cap as max, public scope checked', async () => {
    const element = await developersTab(OWNER_KB, new ScriptedApi());

    const labels = [...root(element).querySelectorAll('label')].map((label) => label.textContent?.trim());
    expect(labels).to.include.members(['Allowed origins', 'Lifetime (minutes)', 'public', 'workspace', 'restricted']);
    const lifetime = root(element).querySelector<HTMLInputElement>('#ttl-minutes')!;
    expect(lifetime.value).to.equal('60');
    expect(lifetime.max).to.equal('120');
    expect(root(element).querySelector<HTMLInputElement>('#scope-public')!.checked).to.equal(true);
    expect(root(element).querySelector<HTMLInputElement>('#scope-workspace')!.checked).to.equal(false);
    expect(button(element, 'Issue token')).to.exist;
  });

  it('malformed origin: a message naming it, the field marked invalid, nothing sent', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);

    await issue(element, 'https://shop.example.com\nshop.example.com/path');

    const message = root(element).querySelector('#origins-error')!.textContent ?? '';
    expect(message).to.contain('Line 2: "shop.example.com/path" is not an origin');
    expect(root(element).querySelector('#allowed-origins')!.getAttribute('aria-invalid')).to.equal('true');
    expect(api.requests.some((request) => request.method === 'POST')).to.equal(false);
  });

  it('server refuses (400): its detail shown in the alert region', async () => {
    const api = new ScriptedApi();
    api.refuseIssue = { status: 400, detail: 'Token lifetime of 60 minutes exceeds the platform cap of 30 minutes' };
    const element = await developersTab(OWNER_KB, api);

    await issue(element, 'https://shop.example.com');
    await waitUntil(() => text(element).includes('platform cap'), 'the refusal is shown');

    expect(root(element).querySelector('[role="alert"]')!.textContent).to.contain('The token was not issued: Token lifetime of 60 minutes exceeds the platform cap of 30 minutes');
  });

  it('lifetime above the cap: a message naming the range, nothing sent', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);
    root(element).querySelector<HTMLInputElement>('#ttl-minutes')!.value = '500';

    await issue(element, 'https://shop.example.com');

    expect(root(element).querySelector('[role="alert"]')!.textContent).to.contain('from 1 to 120; "500" is not');
    expect(api.requests.some((request) => request.method === 'POST')).to.equal(false);
  });
});

describe('kb-developers-tab reader', () => {
  it('reader: a sentence instead of the form, the token list without Revoke, its filters kept', async () => {
    const api = new ScriptedApi();
    api.tokens = [ACTIVE_TOKEN];
    const element = await developersTab(READER_KB, api);

    // Only the list's filters: no issue form.
    expect(root(element).querySelectorAll('form:not([role="search"])').length).to.equal(0);
    expect(root(element).querySelector('#allowed-origins')).to.equal(null);
    expect(button(element, 'Issue token')).to.equal(undefined);
    expect(text(element)).to.contain('needs the editor or owner role');
    expect(text(element)).to.contain('https://shop.example.com');
    expect(button(element, 'Revoke')).to.equal(undefined);
    expect(root(element).querySelector('#filter-status')).not.to.equal(null);
  });
});

describe('kb-developers-tab issued token', () => {
  it('issued: the token once with a Copy button writing it to the clipboard, and the snippet; gone after a reload', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);
    let copied = '';
    const clipboard = navigator.clipboard;
    const original = clipboard.writeText;
    clipboard.writeText = async (value: string) => {
      copied = value;
    };
    try {
      await issue(element, 'http://localhost:5173');
      await waitUntil(() => root(element).querySelector('.token') !== null, 'the token is shown');

      expect(root(element).querySelector('.token')!.textContent).to.equal('kbw_secret_once');
      expect(root(element).querySelector('.snippet')!.textContent).to.contain('kb-widget.js');
      expect(api.requests.find((request) => request.method === 'POST')?.body).to.deep.equal({
        allowed_origins: ['http://localhost:5173'],
        ttl_minutes: 60,
        scope: ['public'],
      });
      button(element, 'Copy')!.click();
      await waitUntil(() => text(element).includes('Copied'), 'the copy is confirmed');
      expect(copied).to.equal('kbw_secret_once');
      expect(text(element)).to.contain('http://localhost:5173');
    } finally {
      clipboard.writeText = original;
    }

    const reloaded = await developersTab(OWNER_KB, api);
    expect(root(reloaded).querySelector('.token')).to.equal(null);
    expect(text(reloaded)).not.to.contain('kbw_secret_once');
  });
});

describe('kb-developers-tab revoke', () => {
  it('Revoke asks to confirm; Cancel keeps the token; Confirm revoke revokes and refreshes the list', async () => {
    const api = new ScriptedApi();
    api.tokens = [ACTIVE_TOKEN];
    const element = await developersTab(OWNER_KB, api);

    button(element, 'Revoke')!.click();
    await element.updateComplete;
    button(element, 'Cancel')!.click();
    await element.updateComplete;
    expect(button(element, 'Confirm revoke')).to.equal(undefined);

    button(element, 'Revoke')!.click();
    await element.updateComplete;
    expect(api.requests.some((request) => request.method === 'DELETE')).to.equal(false);
    button(element, 'Confirm revoke')!.click();
    await waitUntil(() => root(element).querySelector('tbody td[data-label="Status"]')?.textContent === 'revoked', 'the list shows revoked');

    expect(api.requests.find((request) => request.method === 'DELETE')?.path).to.equal('/tokens/tok_1');
    expect(button(element, 'Revoke')).to.equal(undefined);
  });
});

describe('kb-developers-tab preview', () => {
  function preview(element: KbDevelopersTab): KbWidgetPreview | null {
    return root(element).querySelector('kb-widget-preview');
  }

  function previewWidget(element: KbDevelopersTab): KbWidget | null {
    return preview(element)?.shadowRoot?.querySelector('kb-widget') ?? null;
  }

  async function scriptedRequests(): Promise<{ question: string; token: string }[]> {
    return (await (await fetch('/scripted/requests')).json()) as { question: string; token: string }[];
  }

  beforeEach(async () => {
    // The widget keeps its conversation for the tab: each test starts with none.
    sessionStorage.clear();
    await fetch('/scripted/reset');
  });

  it('owner: the real widget inline for this knowledge base on this origin, with the note on the preview token; no token issued yet', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);
    await waitUntil(() => previewWidget(element) !== null, 'the preview widget is shown');

    const widget = previewWidget(element)!;
    expect(widget.getAttribute('mode')).to.equal('inline');
    expect(widget.getAttribute('kb-id')).to.equal('docs');
    expect(widget.getAttribute('base-url')).to.equal(location.origin);
    expect(widget.token).to.equal(undefined);
    expect(preview(element)!.shadowRoot!.textContent!.replace(/\s+/g, ' ')).to.contain('uses a 10-minute preview token limited to this page');
    expect(preview(element)!.shadowRoot!.textContent!.replace(/\s+/g, ' ')).to.contain('reused while it has a few minutes left');
    expect(api.requests.some((request) => request.path === '/tokens/preview')).to.equal(false);
  });

  it('a question asked in the preview: a preview token for the form scope is issued, used, listed as Preview; the cited answer shown', async () => {
    const api = new ScriptedApi();
    api.tokens = [ACTIVE_TOKEN];
    const element = await developersTab(OWNER_KB, api);
    await waitUntil(() => previewWidget(element) !== null, 'the preview widget is shown');
    const widget = previewWidget(element)!;

    await widget.ask('answer');
    await waitUntil(() => widget.shadowRoot!.querySelector('.answer a.citation') !== null, 'the cited answer is shown');

    expect(api.requests.find((request) => request.path === '/tokens/preview')).to.deep.include({ method: 'POST', body: { scope: ['public'] } });
    expect((await scriptedRequests()).map((request) => request.token)).to.deep.equal(['kbw_preview_1']);
    expect(widget.shadowRoot!.querySelector('[part="citation"] .title')!.textContent).to.equal('Fs');
    await waitUntil(() => root(element).querySelector('tr[data-token-id="tok_preview_1"]') !== null, 'the token list is refreshed');
    const row = root(element).querySelector('tr[data-token-id="tok_preview_1"]')!;
    expect(row.querySelector('td[data-label="Purpose"]')!.textContent).to.equal('Preview');
    expect(root(element).querySelector('tr[data-token-id="tok_1"] td[data-label="Purpose"]')!.textContent).to.equal('Embed');
    expect(row.querySelector('button')!.getAttribute('aria-label')).to.equal(
      `Revoke preview token …ew_1, created ${localMinute(ACTIVE_TOKEN.created_at)}, for ${location.origin}`,
    );
  });

  it('scope changed in the form: a fresh preview widget, whose question issues a token for the new scope', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);
    await waitUntil(() => previewWidget(element) !== null, 'the preview widget is shown');
    const first = previewWidget(element)!;
    await first.ask('answer');

    root(element).querySelector<HTMLInputElement>('#scope-workspace')!.click();
    await element.updateComplete;
    await preview(element)!.updateComplete;
    const second = previewWidget(element)!;
    await second.ask('answer');

    expect(second).not.to.equal(first);
    expect(preview(element)!.shadowRoot!.textContent).to.contain('(public, workspace)');
    const scopes = api.requests.filter((request) => request.path === '/tokens/preview').map((request) => request.body);
    expect(scopes).to.deep.equal([{ scope: ['public'] }, { scope: ['public', 'workspace'] }]);
    expect((await scriptedRequests()).map((request) => request.token)).to.deep.equal(['kbw_preview_1', 'kbw_preview_2']);
  });

  it('preview token refused by the server: its sentence shown above the widget', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);
    await waitUntil(() => previewWidget(element) !== null, 'the preview widget is shown');
    api.refuseIssue = { status: 403, detail: 'Issuing a preview token needs update permission (editor or owner); your role is reader' };

    await previewWidget(element)!.ask('answer');
    await preview(element)!.updateComplete;

    expect(preview(element)!.shadowRoot!.querySelector('[role="alert"]')!.textContent).to.contain(
      'The preview token was not issued: Issuing a preview token needs update permission',
    );
  });

  it('scope changed and changed back: the first scope\'s preview token reused while valid, not issued again', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);
    await waitUntil(() => previewWidget(element) !== null, 'the preview widget is shown');
    await previewWidget(element)!.ask('answer');
    const workspace = root(element).querySelector<HTMLInputElement>('#scope-workspace')!;

    workspace.click();
    await element.updateComplete;
    await preview(element)!.updateComplete;
    await previewWidget(element)!.ask('answer');
    workspace.click();
    await element.updateComplete;
    await preview(element)!.updateComplete;
    await previewWidget(element)!.ask('answer');

    expect(api.previews).to.equal(2);
    expect((await scriptedRequests()).map((request) => request.token)).to.deep.equal(['kbw_preview_1', 'kbw_preview_2', 'kbw_preview_1']);
  });

  it('Restart preview: a new widget element, which asks for a new token at its first question', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);
    await waitUntil(() => previewWidget(element) !== null, 'the preview widget is shown');
    const first = previewWidget(element)!;
    await first.ask('answer');

    [...preview(element)!.shadowRoot!.querySelectorAll('button')].find((candidate) => candidate.textContent?.trim() === 'Restart preview')!.click();
    await preview(element)!.updateComplete;
    await previewWidget(element)!.ask('answer');

    expect(previewWidget(element)).not.to.equal(first);
    expect(api.previews).to.equal(2);
  });

  it('reader: no preview (a preview token needs update permission)', async () => {
    const element = await developersTab(READER_KB, new ScriptedApi());

    expect(preview(element)).to.equal(null);
  });
});

/** An ISO time as the list writes it: local time to the minute, `2026-01-15 13:00`. */
function localMinute(iso: string): string {
  const date = new Date(iso);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** `count` embed tokens for the demo origin, a minute apart from 2026-11-27 10:00 UTC, ids `tok_demo00aa`, `tok_demo01ab`, …; every 4th revoked. */
function manyTokens(count: number): ConsoleToken[] {
  return Array.from({ length: count }, (_, index) => ({
    ...ACTIVE_TOKEN,
    id: `tok_demo${String(index).padStart(2, '0')}${String.fromCharCode(97 + (index % 26))}${String.fromCharCode(97 + ((index + 1) % 26))}`,
    allowed_origins: ['http://localhost:35173'],
    status: index % 4 === 3 ? 'revoked' : 'active',
    created_at: new Date(Date.UTC(2026, 10, 27, 10, index)).toISOString(),
    expires_at: new Date(Date.UTC(2026, 10, 27, 11, index)).toISOString(),
  }));
}

function rowIds(element: KbDevelopersTab): string[] {
  return [...root(element).querySelectorAll('tbody tr')].map((row) => row.getAttribute('data-token-id')!);
}

describe('kb-developers-tab token list at scale', () => {
  it('61 tokens for one origin: the 20 newest first, each Revoke named by id suffix, creation time and origin, all names distinct', async () => {
    const api = new ScriptedApi();
    api.tokens = manyTokens(61);
    const element = await developersTab(OWNER_KB, api);

    expect(rowIds(element)).to.deep.equal(api.tokens.slice(41).reverse().map((token) => token.id));
    const names = [...root(element).querySelectorAll('tbody button')].map((candidate) => candidate.getAttribute('aria-label'));
    expect(new Set(names).size).to.equal(names.length);
    const newest = api.tokens[60]!;
    expect(names[0]).to.equal(`Revoke embed token …${newest.id.slice(-4)}, created ${localMinute(newest.created_at)}, for http://localhost:35173`);
    expect(root(element).querySelector('tbody tr td[data-label="Token"]')!.textContent).to.equal(`…${newest.id.slice(-4)}`);
    expect(text(element)).to.contain('Tokens 1–20 of 61, newest first');
  });

  it('Next page and Previous page: the next 20, the last 1, and back; Previous disabled on the first, Next on the last', async () => {
    const api = new ScriptedApi();
    api.tokens = manyTokens(61);
    const element = await developersTab(OWNER_KB, api);
    const newestFirst = [...api.tokens].reverse().map((token) => token.id);

    expect(button(element, 'Previous page')!.disabled).to.equal(true);
    button(element, 'Next page')!.click();
    await waitUntil(() => rowIds(element)[0] === newestFirst[20], 'the second page is shown');
    expect(rowIds(element)).to.deep.equal(newestFirst.slice(20, 40));
    expect(text(element)).to.contain('Tokens 21–40 of 61');
    button(element, 'Next page')!.click();
    await waitUntil(() => rowIds(element).length === 20 && rowIds(element)[0] === newestFirst[40], 'the third page is shown');
    button(element, 'Next page')!.click();
    await waitUntil(() => rowIds(element).length === 1, 'the last page is shown');
    expect(rowIds(element)).to.deep.equal([newestFirst[60]]);
    expect(button(element, 'Next page')!.disabled).to.equal(true);
    expect(text(element)).to.contain('Tokens 61–61 of 61');

    button(element, 'Previous page')!.click();
    await waitUntil(() => rowIds(element)[0] === newestFirst[40], 'the third page is shown again');
    expect(rowIds(element)).to.deep.equal(newestFirst.slice(40, 60));
  });

  it('filters: status chosen and origin typed ask the server for the first page of matches; none matching says so', async () => {
    const api = new ScriptedApi();
    api.tokens = [...manyTokens(8), { ...ACTIVE_TOKEN, id: 'tok_docs', allowed_origins: ['https://docs.example.com'] }];
    const element = await developersTab(OWNER_KB, api);
    const status = root(element).querySelector<HTMLSelectElement>('#filter-status')!;
    const origin = root(element).querySelector<HTMLInputElement>('#filter-origin')!;

    status.value = 'revoked';
    status.dispatchEvent(new Event('change'));
    await waitUntil(() => rowIds(element).length === 2, 'the revoked tokens are shown');
    expect(rowIds(element)).to.deep.equal([api.tokens[7]!.id, api.tokens[3]!.id]);
    expect(api.requests.at(-1)!.path).to.equal('/tokens?limit=20&status=revoked');

    status.value = '';
    status.dispatchEvent(new Event('change'));
    origin.value = 'DOCS.example';
    button(element, 'Filter')!.click();
    await waitUntil(() => rowIds(element).length === 1, 'the docs token is shown');
    expect(rowIds(element)).to.deep.equal(['tok_docs']);
    expect(api.requests.at(-1)!.path).to.equal('/tokens?limit=20&origin=DOCS.example');

    origin.value = 'nowhere.example';
    button(element, 'Filter')!.click();
    await waitUntil(() => text(element).includes('No tokens match these filters.'), 'the empty result is said');
    expect(root(element).querySelector<HTMLInputElement>('#filter-origin')!.value).to.equal('nowhere.example');
  });

  it('in a 360 px column the token table reflows: every cell, Revoke included, within the width, each cell labelled', async () => {
    const api = new ScriptedApi();
    api.tokens = manyTokens(3);
    const wrapper = await fixture<HTMLDivElement>(
      html`<div style="width: 360px"><kb-developers-tab .client=${new ConsoleClient({ fetch: api.fetch })} .knowledgeBase=${OWNER_KB}></kb-developers-tab></div>`,
    );
    const element = wrapper.querySelector<KbDevelopersTab>('kb-developers-tab')!;
    await waitUntil(() => root(element).querySelector('tbody tr') !== null, 'the tokens load');

    const right = wrapper.getBoundingClientRect().right;
    const cells = [...root(element).querySelectorAll('tbody td')];
    expect(cells.length).to.equal(30);
    for (const cell of cells) {
      expect(cell.getBoundingClientRect().right, cell.getAttribute('data-label') ?? '').to.be.at.most(right + 0.5);
      expect(cell.getAttribute('data-label')).to.be.a('string');
    }
    const revoke = root(element).querySelector<HTMLButtonElement>('tbody button')!;
    expect(revoke.getBoundingClientRect().width).to.be.greaterThan(0);
    expect(revoke.getBoundingClientRect().right).to.be.at.most(right + 0.5);
    const status = root(element).querySelector('tbody td[data-label="Status"]')!;
    expect(status.getBoundingClientRect().right).to.be.at.most(right + 0.5);
    expect(button(element, 'Filter')!.getBoundingClientRect().right).to.be.at.most(right + 0.5);
  });

  it('issued token: the note says when it expires and explains the snippet\'s tokenProvider', async () => {
    const api = new ScriptedApi();
    const element = await developersTab(OWNER_KB, api);

    await issue(element, 'https://docs.example.com');
    await waitUntil(() => root(element).querySelector('#expiry-note') !== null, 'the token is shown');

    const note = root(element).querySelector('#expiry-note')!.textContent!.replace(/\s+/g, ' ');
    expect(note).to.contain(`This token expires at ${localMinute(ACTIVE_TOKEN.expires_at)}, 60 minutes after it was issued`);
    expect(note).to.contain('tokenProvider');
    expect(note).to.contain('/kb-widget-token');
    expect(root(element).querySelector('.snippet')!.getAttribute('aria-describedby')).to.equal('expiry-note');
  });
});

describe('kb-developers-tab snippet and token endpoint', () => {
  it('Copy snippet: the snippet reaches the clipboard and the status says "Copied"', async () => {
    const element = await developersTab(OWNER_KB, new ScriptedApi());
    await issue(element, 'https://shop.example.com');
    await waitUntil(() => root(element).querySelector('.snippet') !== null, 'the token is shown');

    await withClipboard(false, async (written) => {
      const { button: copy, status } = copyControl(element, 'Copy snippet');
      copy.click();
      await waitUntil(() => status.textContent === 'Copied', 'the copy is confirmed');

      expect(written).to.deep.equal(['<script src="http://kb.test/widget/kb-widget.js"></script>']);
    });
  });

  it('Copy snippet where the clipboard refuses: the snippet is selected and the status says to copy it by hand', async () => {
    const element = await developersTab(OWNER_KB, new ScriptedApi());
    await issue(element, 'https://shop.example.com');
    await waitUntil(() => root(element).querySelector('.snippet') !== null, 'the token is shown');

    await withClipboard(true, async () => {
      const { button: copy, status } = copyControl(element, 'Copy snippet');
      copy.click();
      await waitUntil(() => status.textContent !== '', 'the failure is said');

      expect(status.textContent).to.equal('Copy failed: the text is selected, copy it by hand');
      expect(getSelection()!.toString()).to.equal('<script src="http://kb.test/widget/kb-widget.js"></script>');
    });
  });

  it('token endpoint: says a token lasts at most the cap, and gives the Express and serverless endpoints for the issued origin, each copied whole', async () => {
    const element = await developersTab(OWNER_KB, new ScriptedApi());
    await issue(element, 'https://shop.example.com');
    await waitUntil(() => root(element).querySelector('.snippet') !== null, 'the token is shown');
    const target = { serviceOrigin: location.origin, kbId: 'docs', siteOrigin: 'https://shop.example.com', ttlMinutes: 60 };

    const statement = root(element).querySelector('#token-lifetime')!.textContent!.replace(/\s+/g, ' ');
    expect(statement).to.contain('A widget token lasts at most 120 minutes (60 unless you choose another lifetime), so a token pasted into a page stops working.');
    expect(statement).to.contain('Your site needs a small token endpoint: GET /kb-widget-token');
    expect([...root(element).querySelectorAll('pre.endpoint')].map((code) => code.textContent)).to.deep.equal([
      expressTokenEndpoint(target),
      serverlessTokenEndpoint(target),
    ]);
    await withClipboard(false, async (written) => {
      copyControl(element, 'Copy Express endpoint').button.click();
      copyControl(element, 'Copy serverless function').button.click();
      await waitUntil(() => written.length === 2, 'both are copied');

      expect(written).to.deep.equal([expressTokenEndpoint(target).trim(), serverlessTokenEndpoint(target).trim()]);
    });
  });

  it('reader: no token endpoint (it needs an editor)', async () => {
    const element = await developersTab(READER_KB, new ScriptedApi());

    expect(root(element).querySelector('#token-lifetime')).to.equal(null);
  });
});

describe('kb-developers-tab accessibility', () => {
  it('no axe violations: owner form with a token list and an issued token, and the reader view', async () => {
    const api = new ScriptedApi();
    api.tokens = [ACTIVE_TOKEN];
    const owner = await developersTab(OWNER_KB, api);
    await issue(owner, 'https://shop.example.com');
    await waitUntil(() => root(owner).querySelector('.token') !== null, 'the token is shown');
    await expect(owner).to.be.accessible();

    const reader = await developersTab(READER_KB, api);
    await expect(reader).to.be.accessible();
  });
});
