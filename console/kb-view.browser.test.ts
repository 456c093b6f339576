import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import { defineKbWidget } from '../widget/define.ts';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ConsoleDocument, ConsoleMember, ConsoleToken, CuratedAnswerList, ImportSource, Insights, KnowledgeBaseDetail } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import { KB_TABS, type KbKnowledgeBaseView, type KbTab } from './kb-view.ts';
import { enforceConsoleStylePolicy } from './testing/console-style-policy.ts';

/**
 * A knowledge base's view in Chromium against a scripted console API whose
 * content has the long words real knowledge bases have (document paths,
 * e-mail addresses, origins): on a 360 px phone, the tab bar and every tab
 * fit the width, so the page never scrolls sideways.
 *
 * The preview's `<kb-widget>` is the real element, defined here, so the
 * Developers tab loads no script.
 */
defineKbWidget();
defineConsoleElements();
/** Every tab below renders under the console's own style policy (an inline `style` it blocks leaves a chart empty). */
const styleViolations = enforceConsoleStylePolicy();

const KNOWLEDGE_BASE: KnowledgeBaseDetail = {
  id: 'docs',
  name: 'Product documentation for administrators',
  role: 'owner',
  can_issue_tokens: true,
  can_manage_members: true,
  can_edit_documents: true,
  token_ttl_cap_minutes: 1440,
  token_ttl_default_minutes: 60,
};

const DOCUMENTS: ConsoleDocument[] = [
  { doc_id: 'guides/configuration/advanced-networking-and-proxy-settings.md', title: 'Advanced networking and proxy settings', visibility: 'public', quotable: true, passages: 42, updated_at: '2026-11-01T10:00:00.000Z' },
  { doc_id: 'plans/q3.md', title: 'Q3 plan', visibility: 'restricted', readers: ['usr_alice'], quotable: false, passages: 1, updated_at: '2026-11-02T10:00:00.000Z' },
];

const MEMBERS: ConsoleMember[] = [
  { user_id: 'usr_owner', email: 'owner@example.com', role: 'owner' },
  { user_id: 'usr_alice', email: 'alice.wonderland-administrator@subsidiary.example.com', role: 'editor', pending: true },
];

const INSIGHTS: Insights = {
  days: 30,
  questions: 6,
  abstained: 4,
  abstention_rate: 4 / 6,
  per_day: [
    { date: '2026-11-26', questions: 1, abstained: 0 },
    { date: '2026-11-27', questions: 5, abstained: 4 },
  ],
  coverage_gaps: [{ question: 'How do I configure certificate rotation for internal-services.example.com?', count: 3, questions: ['How do I configure certificate rotation for internal-services.example.com?'], last_asked_at: '2026-11-27T10:00:00.000Z' }],
  downvoted: [{ question: 'How do I read a file?', asked_at: '2026-11-27T11:00:00.000Z', reason: 'out_of_date', cited_doc_ids: ['guides/configuration/advanced-networking-and-proxy-settings.md'] }],
  problem_reports: [
    {
      question: 'How do I read a file?',
      reported_at: '2026-11-27T11:05:00.000Z',
      reason: 'out_of_date',
      passage: { doc_id: 'guides/configuration/advanced-networking-and-proxy-settings.md', title: 'Advanced networking', text: 'Set HTTPS_PROXY=http://proxy.internal.example.com:3128 for every service.' },
    },
  ],
};

const CURATED: CuratedAnswerList = {
  curated_answers: [
    {
      id: 1,
      question: 'Where do I set the proxy?',
      answer: 'In guides/configuration/advanced-networking-and-proxy-settings.md [1].',
      sources: [{ doc_id: 'guides/configuration/advanced-networking-and-proxy-settings.md', title: 'Advanced networking and proxy settings' }],
    },
  ],
  hidden: 0,
};

const SOURCES: ImportSource[] = [
  {
    id: 'src_1',
    kind: 'sitemap',
    urls: ['https://documentation.subsidiary.example.com/sitemap-index.xml'],
    visibility: 'public',
    readers: [],
    quotable: true,
    max_pages: 500,
    max_depth: 0,
    resync_hours: 24,
    created_by: 'owner@example.com',
    created_at: '2026-11-20T10:00:00.000Z',
    next_sync_at: '2026-11-28T10:00:00.000Z',
  },
];

const TOKENS: ConsoleToken[] = [
  {
    id: 'tok_1a2b',
    status: 'active',
    issuer: 'alice.wonderland-administrator@subsidiary.example.com',
    allowed_origins: ['https://documentation.subsidiary.example.com', 'https://*.customers.example.com'],
    scope: ['public', 'workspace'],
    purpose: 'embed',
    created_at: '2026-11-27T10:00:00.000Z',
    expires_at: '2026-11-27T11:00:00.000Z',
  },
];

/** A widget token as issued: one long word. */
const ISSUED_TOKEN = `kbw_${'Zm9vYmFyYmF6cXV4'.repeat(4)}`;

/** The console API of one knowledge base, answering each list its tabs read, and issuing a token. */
const fetchScripted: FetchFunction = async (url, init) => {
  const path = new URL(url, location.origin).pathname.replace('/console/api/knowledge-bases/docs', '');
  if (init?.method === 'POST' && path === '/tokens') {
    const snippet = `<script src="${location.origin}/widget/kb-widget.js"></script>\n<kb-widget base-url="${location.origin}" kb-id="docs" token="${ISSUED_TOKEN}"></kb-widget>`;
    return Response.json({ ...TOKENS[0], token: ISSUED_TOKEN, snippet }, { status: 201 });
  }
  const answers: Record<string, unknown> = {
    '': KNOWLEDGE_BASE,
    '/documents': { documents: DOCUMENTS },
    '/members': { members: MEMBERS },
    '/insights': INSIGHTS,
    '/curated-answers': CURATED,
    '/imports': { imports: [] },
    '/import-sources': { sources: SOURCES },
    '/tokens': { tokens: TOKENS, total: 1 },
  };
  const answer = answers[path];
  return answer === undefined ? Response.json({ status: 404, code: 'not_found', detail: `No route ${path}` }, { status: 404 }) : Response.json(answer);
};

/** Whether the tab shown has loaded what it lists (no "Loading" left in it, or in the elements inside it). */
function loaded(view: KbKnowledgeBaseView): boolean {
  const tab = view.shadowRoot!.querySelector('nav ~ *');
  const roots = [tab?.shadowRoot, ...[...(tab?.shadowRoot?.querySelectorAll('*') ?? [])].map((element) => element.shadowRoot)];
  return tab !== null && roots.every((root) => root === undefined || root === null || !root.textContent!.includes('Loading'));
}

/** The view of knowledge base `docs` on `tab`, once the tab has loaded. */
async function knowledgeBaseView(tab: KbTab): Promise<KbKnowledgeBaseView> {
  const view = await fixture<KbKnowledgeBaseView>(
    html`<kb-knowledge-base-view .client=${new ConsoleClient({ fetch: fetchScripted })} kb-id="docs" tab=${tab}></kb-knowledge-base-view>`,
  );
  await waitUntil(() => view.shadowRoot!.querySelector('nav') !== null && loaded(view), `the ${tab} tab loads`);
  await new Promise((resolve) => requestAnimationFrame(resolve));
  return view;
}

/** Asserts that the page is no wider than the viewport. */
function expectNoSidewaysScroll(what: string): void {
  const page = document.documentElement;
  expect(page.scrollWidth, `${what}: ${page.scrollWidth} px wide in a ${page.clientWidth} px viewport`).to.be.at.most(page.clientWidth);
}

/** Asserts that nothing rendered so far broke the console's style policy (violations are reported a task later). */
async function expectNoPolicyViolation(what: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(
    styleViolations.map((event) => `${event.violatedDirective} ${event.sample}`),
    `${what}: the console's style policy was broken`,
  ).to.deep.equal([]);
}

describe('kb-knowledge-base-view at 360 px', () => {
  before(async () => {
    await setViewport({ width: 360, height: 800 });
  });

  after(async () => {
    await setViewport({ width: 800, height: 600 });
  });

  for (const { tab, label } of KB_TABS) {
    it(`${label}: the page does not scroll sideways`, async () => {
      await knowledgeBaseView(tab);

      expectNoSidewaysScroll(label);
      await expectNoPolicyViolation(label);
    });
  }

  it('Developers with a token just issued, its snippet and the token endpoint: the page does not scroll sideways', async () => {
    const view = await knowledgeBaseView('developers');
    const developers = view.shadowRoot!.querySelector('kb-developers-tab')!;
    developers.shadowRoot!.querySelector<HTMLTextAreaElement>('#allowed-origins')!.value = 'https://documentation.subsidiary.example.com';
    developers.shadowRoot!.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await waitUntil(() => developers.shadowRoot!.querySelector('code.token') !== null, 'the token is shown');
    await new Promise((resolve) => requestAnimationFrame(resolve));

    expect(developers.shadowRoot!.querySelector('code.token')!.textContent).to.equal(ISSUED_TOKEN);
    expectNoSidewaysScroll('Developers, token issued');
    await expectNoPolicyViolation('Developers, token issued');
  });

  it('Documents with the upload and the import forms opened: the page does not scroll sideways, and no style is blocked', async () => {
    const view = await knowledgeBaseView('documents');
    const documents = view.shadowRoot!.querySelector('kb-documents-tab')!;
    for (const name of ['Upload files', 'Import a website']) {
      const button = [...documents.shadowRoot!.querySelectorAll('button')].find((candidate) => candidate.textContent!.trim() === name);
      expect(button, `a "${name}" button`).to.exist;
      button!.click();
      await new Promise((resolve) => requestAnimationFrame(resolve));
      expectNoSidewaysScroll(`Documents, ${name} open`);
      await expectNoPolicyViolation(`Documents, ${name} open`);
    }
  });
});
