import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { QueryResponse } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { readFrames } from '../testing/read-frames.ts';

let fixture: WidgetFixture;
beforeAll(async () => {
  fixture = await createWidgetFixture();
});
afterAll(async () => {
  await fixture.close();
});

const ZEBRA = 'When does the zebra rollout deploy to the staging cluster?';
const QUOKKA = 'When does the quokka launch happen and for how many customers?';

async function ask(token: string, question: string): Promise<QueryResponse> {
  return (await (await fixture.post('query', { question }, { token })).json()) as QueryResponse;
}

/** Everything the stream reveals, as one string: tokens, quotes, doc ids, suggestions. */
async function streamed(token: string, question: string): Promise<string> {
  const frames = await readFrames(await fixture.post('query/stream', { question }, { token }));
  return JSON.stringify(frames);
}

describe('reach of a widget token', () => {
  test('default scope (public): a workspace document is never cited', async () => {
    const { token } = await fixture.issue();

    const answer = await ask(token, ZEBRA);

    expect(answer.citations.map((citation) => citation.doc_id)).not.toContain('internal.md');
    expect(await streamed(token, ZEBRA)).not.toMatch(/zebra rollout deploys|internal\.md/);
  });

  test('scope including workspace, issued by an editor: the workspace document answers', async () => {
    const { token } = await fixture.issue({ scope: ['public', 'workspace'], issuerId: fixture.users.bob.id });

    const answer = await ask(token, ZEBRA);

    expect(answer.abstained).toBe(false);
    expect(answer.citations[0]?.doc_id).toBe('internal.md');
  });

  test('restricted scope, issuer not a listed reader: the restricted document is never cited, quoted or suggested', async () => {
    const { token } = await fixture.issue({
      scope: ['public', 'workspace', 'restricted'],
      issuerId: fixture.users.bob.id,
    });

    const answer = await ask(token, QUOKKA);

    expect(answer.citations.map((citation) => citation.doc_id)).not.toContain('secret.md');
    expect(await streamed(token, QUOKKA)).not.toMatch(/quokka launch happens|secret\.md|Launch plan/);
  });

  test('restricted scope, issuer a listed reader: the restricted document answers', async () => {
    const { token } = await fixture.issue({
      scope: ['public', 'workspace', 'restricted'],
      issuerId: fixture.users.alice.id,
    });

    const answer = await ask(token, QUOKKA);

    expect(answer.citations[0]?.doc_id).toBe('secret.md');
  });

  test('reader removed from a restricted document: the next answer no longer cites it', async () => {
    const { token } = await fixture.issue({
      scope: ['public', 'workspace', 'restricted'],
      issuerId: fixture.users.alice.id,
    });
    expect((await ask(token, QUOKKA)).citations[0]?.doc_id).toBe('secret.md');

    await fixture.store.setDocumentAccess('docs', 'secret.md', { visibility: 'restricted', readers: [], quotable: true });

    try {
      expect((await ask(token, QUOKKA)).citations.map((citation) => citation.doc_id)).not.toContain('secret.md');
    } finally {
      await fixture.store.setDocumentAccess('docs', 'secret.md', {
        visibility: 'restricted',
        readers: [fixture.users.alice.id],
        quotable: true,
      });
    }
  });

  test('curated answer citing a document outside the reach: not used', async () => {
    await fixture.store.replaceFaq('docs', [
      { question: 'When is the quokka launch?', answer: 'In March [1].', sources: [{ docId: 'secret.md' }] },
    ]);
    try {
      const { token } = await fixture.issue();

      const text = await streamed(token, 'When is the quokka launch?');

      expect(text).not.toMatch(/In March|secret\.md/);
    } finally {
      await fixture.store.replaceFaq('docs', []);
    }
  });

  test('curated answer inside the reach: qa_shortcut with its citation', async () => {
    await fixture.store.replaceFaq('docs', [
      {
        question: 'How do I make nested directories?',
        answer: 'Pass `recursive: true` to `mkdir` [1].',
        sources: [{ docId: 'guide.md', heading: 'Creating directories' }],
      },
    ]);
    try {
      const { token } = await fixture.issue();

      const answer = await ask(token, 'How can I make nested directories?');

      expect(answer).toMatchObject({ provenance: 'qa_shortcut', abstained: false, answer: 'Pass `recursive: true` to `mkdir` [1].' });
      expect(answer.citations).toEqual([expect.objectContaining({ index: 1, doc_id: 'guide.md' })]);
    } finally {
      await fixture.store.replaceFaq('docs', []);
    }
  });
});
