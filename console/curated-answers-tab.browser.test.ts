import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ConsoleDocument, CuratedAnswer, CuratedAnswerRequest } from '../protocol/console-protocol.ts';
import type { KbCuratedAnswersTab } from './curated-answers-tab.ts';
import { defineConsoleElements } from './define.ts';

/**
 * The Curated answers tab in Chromium against a scripted console API that
 * stores and checks curated answers as the server does: "Answer this" from
 * Insights opens the form with the question; a source is chosen from the
 * documents and their headings; edit and two-step remove; the server's
 * refusal shown by the form; a reader sees no controls; axe finds no
 * violation.
 */
defineConsoleElements();

const DOCUMENTS: ConsoleDocument[] = [
  { doc_id: 'guide.md', title: 'Guide', visibility: 'public', quotable: true, passages: 4, updated_at: '2026-11-27T10:00:00.000Z' },
  { doc_id: 'router.pdf', title: 'Router manual', visibility: 'public', quotable: true, passages: 9, updated_at: '2026-11-27T10:00:00.000Z' },
];
const HEADINGS: Record<string, string[]> = { 'guide.md': ['Guide', 'Streams'], 'router.pdf': ['Router manual', 'Resetting the router'] };

/** A console API holding curated answers; refuses a heading its document lacks, as the server does. */
class ScriptedApi {
  answers: CuratedAnswer[] = [{ id: 1, question: 'Where is the guide?', answer: 'In guide.md [1].', sources: [{ doc_id: 'guide.md', title: 'Guide' }] }];
  hidden = 0;
  bodies: { method: string; path: string; body: CuratedAnswerRequest }[] = [];

  readonly fetch: FetchFunction = async (url, init) => {
    const method = init?.method ?? 'GET';
    const path = url.replace('/console/api/knowledge-bases/docs', '');
    if (method === 'GET' && path === '/curated-answers') return Response.json({ curated_answers: this.answers, hidden: this.hidden });
    if (method === 'GET' && path === '/documents') return Response.json({ documents: DOCUMENTS });
    const headings = /^\/headings\?doc_id=(.+)$/.exec(path);
    if (method === 'GET' && headings) return Response.json({ doc_id: decodeURIComponent(headings[1]!), headings: HEADINGS[decodeURIComponent(headings[1]!)] ?? [] });
    const one = /^\/curated-answers\/(\d+)$/.exec(path);
    if (method === 'DELETE' && one) {
      this.answers = this.answers.filter((answer) => answer.id !== Number(one[1]));
      return new Response(null, { status: 204 });
    }
    if ((method === 'POST' && path === '/curated-answers') || (method === 'PUT' && one)) {
      const body = JSON.parse(String(init!.body)) as CuratedAnswerRequest;
      this.bodies.push({ method, path, body });
      const sources = body.sources ?? [];
      const wrong = sources.findIndex((source) => source.heading !== undefined && !HEADINGS[source.doc_id]!.includes(source.heading));
      if (wrong >= 0) {
        const detail = `sources.${wrong}.heading: "${sources[wrong]!.doc_id}" has no heading "${sources[wrong]!.heading}"`;
        return Response.json({ status: 400, code: 'invalid_request', detail }, { status: 400 });
      }
      const stored: CuratedAnswer = {
        id: one ? Number(one[1]) : Math.max(0, ...this.answers.map((answer) => answer.id)) + 1,
        question: body.question,
        answer: body.answer,
        sources: sources.map((source) => ({ ...source, title: DOCUMENTS.find((document) => document.doc_id === source.doc_id)!.title })),
      };
      this.answers = one ? this.answers.map((answer) => (answer.id === stored.id ? stored : answer)) : [...this.answers, stored];
      return Response.json(stored, { status: one ? 200 : 201 });
    }
    return Response.json({ status: 404, code: 'not_found', detail: `No route ${method} ${path}` }, { status: 404 });
  };
}

async function answersTab(api: ScriptedApi, options: { canEdit: boolean; question?: string }): Promise<KbCuratedAnswersTab> {
  const element = await fixture<KbCuratedAnswersTab>(
    html`<kb-curated-answers-tab
      .client=${new ConsoleClient({ fetch: api.fetch })}
      kb-id="docs"
      ?can-edit=${options.canEdit}
      .question=${options.question}
    ></kb-curated-answers-tab>`,
  );
  await waitUntil(() => element.shadowRoot!.querySelector('tbody tr') !== null, 'the curated answers load');
  return element;
}

function control<T extends Element>(element: KbCuratedAnswersTab, selector: string): T {
  const found = element.shadowRoot!.querySelector<T>(selector);
  if (!found) throw new Error(`No ${selector}`);
  return found;
}

function buttonNamed(element: KbCuratedAnswersTab, accessibleName: string): HTMLButtonElement {
  const found = [...element.shadowRoot!.querySelectorAll('button')].find(
    (candidate) => (candidate.getAttribute('aria-label') ?? candidate.textContent?.trim()) === accessibleName,
  );
  if (!found) throw new Error(`No button "${accessibleName}"`);
  return found;
}

async function type(element: KbCuratedAnswersTab, selector: string, value: string): Promise<void> {
  const field = control<HTMLInputElement | HTMLTextAreaElement>(element, selector);
  field.value = value;
  field.dispatchEvent(new Event('input'));
  await element.updateComplete;
}

async function choose(element: KbCuratedAnswersTab, selector: string, value: string): Promise<void> {
  const select = control<HTMLSelectElement>(element, selector);
  select.value = value;
  select.dispatchEvent(new Event('change'));
  await element.updateComplete;
}

function rows(element: KbCuratedAnswersTab): string[] {
  return [...element.shadowRoot!.querySelectorAll('tbody tr')].map((row) => [...row.querySelectorAll('td:not([data-label="Actions"])')].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim()).join(' | '));
}

describe('kb-curated-answers-tab', () => {
  it('opened with a question from Insights: the form holds it; a document and one of its sections are chosen; saved, it is listed', async () => {
    const api = new ScriptedApi();
    const element = await answersTab(api, { canEdit: true, question: 'How do I reset the router?' });

    expect(control<HTMLInputElement>(element, '#curated-question').value).to.equal('How do I reset the router?');
    await type(element, '#curated-answer', 'Hold the reset button for ten seconds [1].');
    buttonNamed(element, 'Add a source').click();
    await element.updateComplete;
    await choose(element, '#source-doc-1', 'router.pdf');
    await waitUntil(() => element.shadowRoot!.querySelectorAll('#source-heading-1 option').length === 3, 'the headings of router.pdf load');
    await choose(element, '#source-heading-1', 'Resetting the router');
    buttonNamed(element, 'Save curated answer').click();
    await waitUntil(() => rows(element).length === 2, 'the new curated answer is listed');

    expect(api.bodies).to.deep.equal([
      {
        method: 'POST',
        path: '/curated-answers',
        body: {
          question: 'How do I reset the router?',
          answer: 'Hold the reset button for ten seconds [1].',
          sources: [{ doc_id: 'router.pdf', heading: 'Resetting the router' }],
        },
      },
    ]);
    expect(rows(element)[1]).to.equal('How do I reset the router? | Hold the reset button for ten seconds [1]. | Router manual › Resetting the router (router.pdf)');
    expect(element.shadowRoot!.querySelector('form')).to.equal(null);
    expect(control(element, '[role="status"]').textContent).to.contain('Visitors asking “How do I reset the router?”');
  });

  it('Edit fills the form with the curated answer; saved, the list shows the new text; Remove asks a second time', async () => {
    const api = new ScriptedApi();
    const element = await answersTab(api, { canEdit: true });

    buttonNamed(element, 'Edit the curated answer to Where is the guide?').click();
    await element.updateComplete;
    expect(control<HTMLTextAreaElement>(element, '#curated-answer').value).to.equal('In guide.md [1].');
    expect(control<HTMLSelectElement>(element, '#source-doc-1').value).to.equal('guide.md');
    await type(element, '#curated-answer', 'Open guide.md [1].');
    buttonNamed(element, 'Save curated answer').click();
    await waitUntil(() => rows(element)[0]?.includes('Open guide.md'), 'the edit is listed');
    expect(api.bodies.map((request) => [request.method, request.path])).to.deep.equal([['PUT', '/curated-answers/1']]);

    buttonNamed(element, 'Remove the curated answer to Where is the guide?').click();
    await element.updateComplete;
    expect(rows(element)).to.have.length(1);
    buttonNamed(element, 'Confirm remove the curated answer to Where is the guide?').click();
    await waitUntil(() => element.shadowRoot!.querySelector('tbody') === null, 'the curated answer is gone');
    expect(control(element, '[role="status"]').textContent).to.equal('The curated answer to “Where is the guide?” was removed.');
  });

  it("the server's refusal is shown by the form, which stays open with what was typed", async () => {
    const api = new ScriptedApi();
    api.answers[0]!.sources = [{ doc_id: 'guide.md', heading: 'Zebras', title: 'Guide' }];
    const element = await answersTab(api, { canEdit: true });

    buttonNamed(element, 'Edit the curated answer to Where is the guide?').click();
    await element.updateComplete;
    buttonNamed(element, 'Save curated answer').click();
    await waitUntil(() => control(element, 'form [role="alert"]').textContent?.trim() !== '', 'the refusal is shown');

    expect(control(element, 'form [role="alert"]').textContent?.trim()).to.equal('Not saved: sources.0.heading: "guide.md" has no heading "Zebras"');
    expect(control<HTMLSelectElement>(element, '#source-heading-1').value).to.equal('Zebras');
  });

  it('a reader: the list without controls, hidden curated answers counted, a question from the address ignored', async () => {
    const api = new ScriptedApi();
    api.hidden = 2;
    const element = await answersTab(api, { canEdit: false, question: 'How do I reset the router?' });

    expect(element.shadowRoot!.querySelectorAll('button, form')).to.have.length(0);
    expect(element.shadowRoot!.textContent).to.contain('2 more curated answers cite documents you cannot read.');
  });

  it('no axe violations, list and form', async () => {
    const element = await answersTab(new ScriptedApi(), { canEdit: true, question: 'How do I reset the router?' });
    buttonNamed(element, 'Add a source').click();
    await element.updateComplete;
    await expect(element).to.be.accessible();
  });
});
