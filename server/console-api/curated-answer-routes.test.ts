import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CuratedAnswerListSchema, type CuratedAnswer, type CuratedAnswerList, type HeadingList } from '../../protocol/console-protocol.ts';
import type { QueryResponse } from '../../protocol/query-protocol.ts';
import { consoleCall } from '../testing/console-call.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * The Curated answers tab's API over real HTTP on the test run's backend:
 * an editor adds, edits and removes a curated answer, and a visitor's
 * question worded like it is answered with it (`provenance: qa_shortcut`)
 * at once - no cached answer outlives an edit.
 */

const PASSWORD = 'correct horse battery staple';
const ZEBRA = 'How do I rotate the zebra certificates?';
let fixture: WidgetFixture;
let owner: string;
let alice: string;
let reader: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: PASSWORD, alice: PASSWORD, reader: PASSWORD } });
  owner = await fixture.signIn('owner@example.com', PASSWORD);
  alice = await fixture.signIn('alice@example.com', PASSWORD);
  reader = await fixture.signIn('reader@example.com', PASSWORD);
});
afterAll(async () => {
  await fixture.close();
});

function call(method: string, path: string, cookie: string, body?: unknown) {
  return consoleCall(fixture, method, path, cookie, body);
}

async function detail(response: Response): Promise<[number, string]> {
  return [response.status, ((await response.json()) as { detail: string }).detail];
}

async function ask(question: string): Promise<QueryResponse> {
  const { token } = await fixture.issue();
  return (await (await fixture.post('query', { question }, { token })).json()) as QueryResponse;
}

describe('curated answers', () => {
  test('added, it answers a question worded alike as qa_shortcut with its citation; edited, the new text at once; removed, abstained again', async () => {
    expect((await ask(ZEBRA)).abstained).toBe(true);

    const created = await call('POST', 'curated-answers', owner, {
      question: 'How do I rotate zebra certificates?',
      answer: 'Run the zebra rotation from the Streams section.',
      sources: [{ doc_id: 'guide.md', heading: 'Streams' }],
    });
    const added = (await created.json()) as CuratedAnswer;
    expect(created.status).toBe(201);
    expect(added).toMatchObject({
      question: 'How do I rotate zebra certificates?',
      answer: 'Run the zebra rotation from the Streams section. [1]',
      sources: [{ doc_id: 'guide.md', heading: 'Streams', title: 'Guide' }],
    });
    const answered = await ask(ZEBRA);
    expect([answered.provenance, answered.answer, answered.citations.map((citation) => citation.title)]).toEqual([
      'qa_shortcut',
      'Run the zebra rotation from the Streams section. [1]',
      ['Guide › Streams'],
    ]);

    const edited = await call('PUT', `curated-answers/${added.id}`, owner, { question: added.question, answer: 'Ask the platform team [1].', sources: [{ doc_id: 'guide.md' }] });
    expect(edited.status).toBe(200);
    expect((await ask(ZEBRA)).answer).toBe('Ask the platform team [1].');

    expect((await call('DELETE', `curated-answers/${added.id}`, owner)).status).toBe(204);
    expect((await ask(ZEBRA)).abstained).toBe(true);
    expect((await call('DELETE', `curated-answers/${added.id}`, owner)).status).toBe(404);
  });

  test('listed in the order they are matched, with source titles; one citing a document the person cannot read is left out, counted, and cannot be edited', async () => {
    const first = (await (await call('POST', 'curated-answers', owner, { question: 'Where is the guide?', answer: 'In guide.md.', sources: [] })).json()) as CuratedAnswer;
    const secret = (await (
      await call('POST', 'curated-answers', alice, { question: 'When is the quokka launch?', answer: 'In March [1].', sources: [{ doc_id: 'secret.md' }] })
    ).json()) as CuratedAnswer;

    const asAlice = (await (await call('GET', 'curated-answers', alice)).json()) as CuratedAnswerList;
    const asReader = (await (await call('GET', 'curated-answers', reader)).json()) as CuratedAnswerList;

    expect(CuratedAnswerListSchema.parse(asAlice)).toEqual(asAlice);
    expect(asAlice.curated_answers.map((pair) => pair.id)).toEqual([first.id, secret.id]);
    expect(asAlice.curated_answers[1]!.sources).toEqual([{ doc_id: 'secret.md', title: 'Launch plan' }]);
    expect([asReader.curated_answers.map((pair) => pair.id), asReader.hidden]).toEqual([[first.id], 1]);
    expect((await call('DELETE', `curated-answers/${secret.id}`, owner)).status).toBe(404);
    expect((await call('DELETE', `curated-answers/${secret.id}`, alice)).status).toBe(204);
    expect((await call('DELETE', `curated-answers/${first.id}`, owner)).status).toBe(204);
  });

  test('refused with the field named, nothing stored: an unreadable or unknown document, a heading not in it, markers without sources; a reader may not add', async () => {
    const valid = { question: 'Where do zebras live?', answer: 'In the guide [1].', sources: [{ doc_id: 'guide.md' }] };

    expect(await detail(await call('POST', 'curated-answers', owner, { ...valid, sources: [{ doc_id: 'secret.md' }] }))).toEqual([
      400,
      'sources.0.doc_id: no document "secret.md" that you can read',
    ]);
    expect(await detail(await call('POST', 'curated-answers', owner, { ...valid, sources: [{ doc_id: 'nowhere.md' }] }))).toEqual([
      400,
      'sources.0.doc_id: no document "nowhere.md" that you can read',
    ]);
    expect(await detail(await call('POST', 'curated-answers', owner, { ...valid, sources: [{ doc_id: 'guide.md', heading: 'Zebras' }] }))).toEqual([
      400,
      'sources.0.heading: "guide.md" has no heading "Zebras"',
    ]);
    expect(await detail(await call('POST', 'curated-answers', owner, { ...valid, answer: 'See [2].' }))).toEqual([400, 'answer: marker [2] has no source 2']);
    expect(await detail(await call('POST', 'curated-answers', owner, { ...valid, question: ' ' }))).toEqual([400, 'question: Too small: expected string to have >=1 characters']);
    expect((await call('POST', 'curated-answers', reader, valid)).status).toBe(403);
    expect(await call('PUT', 'curated-answers/not-a-number', owner, valid).then((response) => response.status)).toBe(404);
    expect(((await (await call('GET', 'curated-answers', owner)).json()) as CuratedAnswerList).curated_answers).toEqual([]);
  });

  test("a document's headings in document order, for choosing what to cite", async () => {
    const response = await call('GET', 'headings?doc_id=guide.md', reader);

    expect((await response.json()) as HeadingList).toEqual({ doc_id: 'guide.md', headings: ['Guide', 'Creating directories', 'Reading files', 'Streams'] });
    expect((await call('GET', 'headings?doc_id=secret.md', reader)).status).toBe(404);
    expect((await call('GET', 'headings', reader)).status).toBe(400);
  });
});
