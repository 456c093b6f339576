import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { Insights } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import type { KbInsightsTab } from './insights-tab.ts';
import { enforceConsoleStylePolicy } from './testing/console-style-policy.ts';

/**
 * The Insights tab in Chromium against a scripted console API: the
 * summary, the per-day chart as a table, coverage gaps most asked first
 * ("Answer this" leading to the Curated answers tab with the question),
 * 👎 answers, problem reports with their passages, the CSV link following
 * the period; axe finds no violation. The whole file runs under the
 * console page's style policy (`style-src 'self'`), as the tab does in the
 * console.
 */
defineConsoleElements();
const styleViolations = enforceConsoleStylePolicy();

function insights(days: number): Insights {
  return {
    days,
    questions: 6,
    abstained: 4,
    abstention_rate: 4 / 6,
    per_day: [
      { date: '2026-11-25', questions: 0, abstained: 0 },
      { date: '2026-11-26', questions: 1, abstained: 0 },
      { date: '2026-11-27', questions: 5, abstained: 4 },
    ],
    coverage_gaps: [
      { question: 'How do I rotate certificates?', count: 3, questions: ['How do I rotate certificates?', 'rotating a certificate'], last_asked_at: '2026-11-27T10:00:00.000Z' },
      { question: 'Can I export invoices?', count: 1, questions: ['Can I export invoices?'], last_asked_at: '2026-11-27T09:00:00.000Z', curated_answer_id: 4 },
    ],
    downvoted: [{ question: 'How do I read a file?', asked_at: '2026-11-27T11:00:00.000Z', reason: 'out_of_date', cited_doc_ids: ['guide.md'] }],
    problem_reports: [
      {
        question: 'How do I read a file?',
        reported_at: '2026-11-27T11:05:00.000Z',
        reason: 'out_of_date',
        comment: 'There is a promise form now.',
        passage: { doc_id: 'guide.md', title: 'Guide', headings: ['Guide', 'Reading files'], text: 'Call `readFile()` with a **path** [2]:\n\n```js\nfs.readFile(\'a.txt\', callback);\n```\n\n- the path\n- a callback', url: 'https://docs.example.com/guide/#reading-files' },
      },
      { question: 'How do I stream?', reported_at: '2026-11-27T10:05:00.000Z', reason: 'broken_link', passage: { doc_id: 'guide.md', title: 'Guide' } },
      { question: 'Where is the plan?', reported_at: '2026-11-27T09:05:00.000Z', reason: 'incorrect' },
    ],
  };
}

class ScriptedApi {
  requested: string[] = [];
  readonly fetch: FetchFunction = async (url) => {
    this.requested.push(url);
    const days = Number(new URL(url, 'http://x').searchParams.get('days'));
    return Response.json(insights(days));
  };
}

async function insightsTab(api: ScriptedApi): Promise<KbInsightsTab> {
  const element = await fixture<KbInsightsTab>(html`<kb-insights-tab .client=${new ConsoleClient({ fetch: api.fetch })} kb-id="docs"></kb-insights-tab>`);
  await waitUntil(() => element.shadowRoot!.querySelector('.summary') !== null, 'the insights load');
  return element;
}

function text(element: Element | null): string {
  return (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

describe('kb-insights-tab', () => {
  it('the summary, each day with its counts, the gaps most asked first with their wordings, the 👎 answer with its reason', async () => {
    const element = await insightsTab(new ScriptedApi());
    const root = element.shadowRoot!;

    expect(text(root.querySelector('.summary'))).to.equal('6 questions, 4 abstained (67 %)');
    expect([...root.querySelectorAll('table.chart tbody tr')].map((row) => text(row))).to.deep.equal(['2026-11-25 0 0', '2026-11-26 1 0', '2026-11-27 5 4']);
    expect([...root.querySelectorAll('ol.gaps li')].map((item) => text(item))).to.deep.equal([
      'How do I rotate certificates? - asked 3 times, last on 2026-11-27 Also: rotating a certificate Answer this',
      'Can I export invoices? - asked 1 time, last on 2026-11-27 A curated answer now answers it. See curated answers',
    ]);
    const answerThis = root.querySelector('ol.gaps a')!;
    expect([answerThis.getAttribute('aria-label'), answerThis.getAttribute('href')]).to.deep.equal([
      'Answer this: How do I rotate certificates?',
      '#/kb/docs/answers?question=How+do+I+rotate+certificates%3F',
    ]);
    expect(text(root.querySelector('table.reflow tbody tr'))).to.equal('How do I read a file? out of date guide.md 2026-11-27 11:00');
    expect([...root.querySelectorAll('ol.reports > li')].map((item) => text(item))).to.deep.equal([
      'out of date, reported 2026-11-27 11:05 on the answer to “How do I read a file?”: There is a promise form now. Passage of Guide › Reading files (guide.md) Call readFile() with a path [2]:fs.readFile(\'a.txt\', callback);the patha callback',
      'broken link, reported 2026-11-27 10:05 on the answer to “How do I stream?” Passage of Guide (guide.md) The document has changed since the report; check its current version.',
      "incorrect, reported 2026-11-27 09:05 on the answer to “Where is the plan?” The reported passage's document was removed, or you may not read it.",
    ]);
    expect(root.querySelector('ol.reports a')!.getAttribute('href')).to.equal('https://docs.example.com/guide/#reading-files');
  });

  it('a reported passage in markdown: rendered as the widget renders answers, code as code, no markdown characters shown', async () => {
    const element = await insightsTab(new ScriptedApi());

    const quote = element.shadowRoot!.querySelector('ol.reports blockquote')!;

    expect(quote.querySelector('p code')?.textContent).to.equal('readFile()');
    expect(quote.querySelector('strong')?.textContent).to.equal('path');
    expect(quote.querySelector('pre code')?.textContent).to.equal("fs.readFile('a.txt', callback);");
    expect([...quote.querySelectorAll('li')].map((item) => text(item))).to.deep.equal(['the path', 'a callback']);
    expect(quote.querySelector('a')).to.equal(null);
    expect(quote.textContent).not.to.match(/`|\*\*|^- /m);
  });

  it("under the console's style policy: no violation, each day's bars drawn to scale of the busiest day", async () => {
    const element = await insightsTab(new ScriptedApi());
    await new Promise((resolve) => setTimeout(resolve, 100));

    const rows = [...element.shadowRoot!.querySelectorAll('table.chart tbody tr')];
    const widths = rows.map((row) => [...row.querySelectorAll('.bar')].map((bar) => bar.getBoundingClientRect().width));
    const scale = Math.max(...widths.map(([answered = 0, abstained = 0]) => answered + abstained));
    expect(styleViolations.map((violation) => `${violation.effectiveDirective}: ${violation.sample}`)).to.deep.equal([]);
    expect(scale).to.be.greaterThan(100);
    expect(widths.map((row) => row.map((width) => Math.round((100 * width) / scale)))).to.deep.equal([
      [0, 0],
      [20, 0],
      [20, 80],
    ]);
  });

  it('another period: the insights and the CSV link follow it', async () => {
    const api = new ScriptedApi();
    const element = await insightsTab(api);
    const select = element.shadowRoot!.querySelector<HTMLSelectElement>('#insights-period')!;

    select.value = '7';
    select.dispatchEvent(new Event('change'));
    await waitUntil(() => api.requested.length === 2, 'the new period loads');
    await element.updateComplete;

    expect(api.requested.map((url) => url.replace(/^.*\/docs/, ''))).to.deep.equal(['/insights?days=30', '/insights?days=7']);
    expect(element.shadowRoot!.querySelector('a[download]')!.getAttribute('href')).to.equal('/console/api/knowledge-bases/docs/questions.csv?days=7');
  });

  it('no axe violations', async () => {
    const element = await insightsTab(new ScriptedApi());
    await expect(element).to.be.accessible();
  });
});
