import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InsightsSchema, type Insights } from '../../protocol/console-protocol.ts';
import type { QueryResponse } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * Insights and the CSV export over real HTTP on the test run's backend:
 * questions asked through the widget, an abstention worded three ways, a
 * 👎, a problem report on a cited passage - as an owner sees them in the
 * console API.
 */

const OWNER_PASSWORD = 'correct horse battery staple';
let fixture: WidgetFixture;
let owner: string;
let reader: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ questionLog: true, consolePasswords: { owner: OWNER_PASSWORD, reader: OWNER_PASSWORD } });
  let { token } = await fixture.issue();
  const ask = async (question: string) => (await (await fixture.post('query', { question }, { token })).json()) as QueryResponse;
  await ask('How do I create a directory with its parents?');
  fixture.advance(24 * 60 * 60 * 1000);
  ({ token } = await fixture.issue());
  for (const question of ['How do I rotate the zebra certificates?', 'rotating zebra certificates', 'How do I rotate the zebra certificates?', '=HYPERLINK("x") zebra export']) {
    const answer = await ask(question);
    expect(answer.abstained, `${question}: ${JSON.stringify(answer)}`).toBe(true);
  }
  const answer = await ask('How do I read a whole file into a string?');
  await fixture.post('feedback', { kind: 'rating', question: 'How do I read a whole file into a string?', provenance: answer.provenance, rating: 'down', reason: 'incorrect', source_spans: [] }, { token });
  await fixture.post(
    'feedback',
    { kind: 'problem', question: 'How do I read a whole file into a string?', provenance: answer.provenance, source_span: answer.citations[0]!.source_span, reason: 'out_of_date', comment: 'There is a promise form now.' },
    { token },
  );
  await fixture.questionLog!.flush();
  owner = await fixture.signIn('owner@example.com', OWNER_PASSWORD);
  reader = await fixture.signIn('reader@example.com', OWNER_PASSWORD);
});
afterAll(async () => {
  await fixture.close();
});

function get(path: string, cookie: string) {
  return fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/${path}`, { headers: { Cookie: cookie, Origin: fixture.baseUrl } });
}

describe('insights', () => {
  test('per day counts with empty days, the abstention rate, coverage gaps grouped and most asked first, the 👎 answer with its reason and citations', async () => {
    const response = await get('insights?days=3', owner);
    const insights = (await response.json()) as Insights;

    expect(response.status).toBe(200);
    expect(InsightsSchema.parse(insights)).toEqual(insights);
    const today = new Date(fixture.now()).toISOString().slice(0, 10);
    const yesterday = new Date(fixture.now() - 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    expect(insights.per_day.map((day) => [day.date, day.questions, day.abstained])).toEqual([
      [new Date(fixture.now() - 2 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10), 0, 0],
      [yesterday, 1, 0],
      [today, 5, 4],
    ]);
    expect([insights.questions, insights.abstained, insights.abstention_rate]).toEqual([6, 4, 4 / 6]);
    expect(insights.coverage_gaps.map((gap) => [gap.question, gap.count, gap.questions])).toEqual([
      ['How do I rotate the zebra certificates?', 3, ['How do I rotate the zebra certificates?', 'rotating zebra certificates']],
      ['=HYPERLINK("x") zebra export', 1, ['=HYPERLINK("x") zebra export']],
    ]);
    expect(insights.downvoted).toEqual([{ question: 'How do I read a whole file into a string?', asked_at: new Date(fixture.now()).toISOString(), reason: 'incorrect', cited_doc_ids: ['guide.md'] }]);
  });

  test('the CSV export: a header and one row a question, newest first, a formula-like question defused', async () => {
    const response = await get('questions.csv?days=3', owner);
    const lines = (await response.text()).trim().split('\n');

    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toContain('docs-questions-3d.csv');
    expect(lines[0]).toBe('asked_at,question,provenance,cited_documents,latency_ms,endpoint,rating,rating_reason,problem_reports');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(/^[^,]+,How do I read a whole file into a string\?,generated,guide\.md,\d+,json,down,incorrect,1$/);
    expect(lines).toContainEqual(expect.stringMatching(/^[^,]+,"'=HYPERLINK\(""x""\) zebra export",abstained,,\d+,json,,,0$/));
  });

  test('a reader: 403; days out of range: 400 naming the range', async () => {
    expect((await get('insights', reader)).status).toBe(403);
    expect((await get('questions.csv', reader)).status).toBe(403);
    const refused = await get('insights?days=0', owner);
    expect([refused.status, ((await refused.json()) as { detail: string }).detail]).toEqual([400, 'days must be a whole number from 1 to 365']);
  });

  test('a coverage gap a curated answer now covers is marked with it; the others are not', async () => {
    const created = await fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/curated-answers`, {
      method: 'POST',
      headers: { Cookie: owner, Origin: fixture.baseUrl, 'Content-Type': 'application/json' },
      body: JSON.stringify({ question: 'How to rotate zebra certificates', answer: 'Ask the platform team.', sources: [] }),
    });
    const { id } = (await created.json()) as { id: number };

    const insights = (await (await get('insights?days=3', owner)).json()) as Insights;

    expect(insights.coverage_gaps.map((gap) => [gap.question, gap.curated_answer_id])).toEqual([
      ['How do I rotate the zebra certificates?', id],
      ['=HYPERLINK("x") zebra export', undefined],
    ]);
  });

  test('a problem report with the reported passage: its headings and text; once the document changed, only the document', async () => {
    const before = (await (await get('insights?days=3', owner)).json()) as Insights;
    const changed = await fetch(`${fixture.baseUrl}/console/api/knowledge-bases/docs/documents/guide.md`, {
      method: 'PUT',
      headers: { Cookie: owner, Origin: fixture.baseUrl, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: '# Guide\n\n## Reading files\n\nUse `readFile` from `fs/promises`.\n', visibility: 'public' }),
    });
    const after = (await (await get('insights?days=3', owner)).json()) as Insights;

    expect(before.problem_reports).toEqual([
      {
        question: 'How do I read a whole file into a string?',
        reported_at: new Date(fixture.now()).toISOString(),
        reason: 'out_of_date',
        comment: 'There is a promise form now.',
        passage: { doc_id: 'guide.md', title: 'Guide', headings: ['Guide', 'Reading files'], text: expect.stringContaining('Call `readFile` with a path and an encoding') },
      },
    ]);
    expect(changed.status).toBe(200);
    expect(after.problem_reports.map((report) => report.passage)).toEqual([{ doc_id: 'guide.md', title: 'Guide' }]);
  });
});
