import { expect } from '@open-wc/testing';
import type { Turn } from './conversation.ts';
import { loadTurns, MAX_STORED_CHARACTERS, MAX_STORED_TURNS, saveTurns } from './conversation-storage.ts';

/** The conversation kept for the tab, in Chromium's real `sessionStorage`. */

const KEY = 'kb-widget|inline||https://kb.example.com|docs';

function turn(id: number, overrides: Partial<Turn> = {}): Turn {
  return {
    id,
    question: `Question ${id}?`,
    status: 'answered',
    text: `Answer ${id} [1].`,
    citations: [{ index: 1, doc_id: 'fs.md', kb_id: 'docs', source_span: { ref: `r${id}` }, text: 'Quoted.', title: 'File system' }],
    suggestions: ['Next?'],
    ...overrides,
  };
}

beforeEach(() => {
  sessionStorage.clear();
});

describe('conversation storage', () => {
  it('finished turns saved and loaded: the same turns, numbered from 1; a turn still streaming is not kept', () => {
    const failed = turn(8, { status: 'failed', text: '', failure: { reason: 'rate-limited', retryAfterSeconds: 7, retryAt: 1_000 } });

    saveTurns(KEY, [turn(5), failed, turn(9, { status: 'streaming' })]);

    expect(loadTurns(KEY)).to.deep.equal([{ ...turn(5), id: 1 }, { ...failed, id: 2 }]);
  });

  it('a turn rated and with its provenance: both kept, so a reload neither rates it again nor forgets how it was made', () => {
    saveTurns(KEY, [turn(3, { provenance: 'qa_shortcut', rated: 'down' })]);

    expect(loadTurns(KEY)).to.deep.equal([{ ...turn(3), id: 1, provenance: 'qa_shortcut', rated: 'down' }]);
  });

  it(`more than ${MAX_STORED_TURNS} turns: the newest ${MAX_STORED_TURNS} kept`, () => {
    saveTurns(KEY, Array.from({ length: MAX_STORED_TURNS + 5 }, (_, index) => turn(index + 1)));

    const loaded = loadTurns(KEY);

    expect(loaded).to.have.length(MAX_STORED_TURNS);
    expect(loaded[0]!.question).to.equal('Question 6?');
  });

  it(`turns over ${MAX_STORED_CHARACTERS} characters: the oldest dropped until the rest fit`, () => {
    const big = 'x'.repeat(MAX_STORED_CHARACTERS / 4);

    saveTurns(KEY, [1, 2, 3, 4, 5].map((id) => turn(id, { text: big })));

    expect(sessionStorage.getItem(KEY)!.length).to.be.at.most(MAX_STORED_CHARACTERS);
    expect(loadTurns(KEY).map((loaded) => loaded.question)).to.deep.equal(['Question 3?', 'Question 4?', 'Question 5?']);
  });

  it('no finished turn left: the entry is removed', () => {
    saveTurns(KEY, [turn(1)]);

    saveTurns(KEY, []);

    expect(sessionStorage.getItem(KEY)).to.equal(null);
  });

  it('stored text that is not turns (not JSON, not a list, a bad citation, a streaming status): nothing loaded, nothing thrown', () => {
    for (const stored of ['{oops', '{"a":1}', JSON.stringify([{ ...turn(1), citations: [{ index: 1 }] }]), JSON.stringify([turn(1, { status: 'streaming' })])]) {
      sessionStorage.setItem(KEY, stored);

      expect(loadTurns(KEY)).to.deep.equal([]);
    }
  });

  it('storage that refuses to write (full): the page goes on', () => {
    const full = {
      setItem: () => {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      },
    } as unknown as Storage;

    expect(() => saveTurns(KEY, [turn(1)], full)).not.to.throw();
  });
});
