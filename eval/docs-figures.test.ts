import { describe, expect, it } from 'vitest';
import { answersQuestion, docsFigures, fateShares, judgeOutcome, median, type AnswerOutcome, type JudgedOutcome } from './docs-figures.ts';
import type { DocsQuestion } from './docs-questions.ts';

const sizeQuestion: DocsQuestion = {
  id: 'fs-file-size',
  question: 'How do I get the size of a file in bytes?',
  expect: 'answer',
  gold: ['fs.md'],
  key: [['fs.stat', 'fs.statSync'], 'size'],
  split: 'report',
};

function outcome(overrides: Partial<AnswerOutcome>): AnswerOutcome {
  return { answer: '', abstained: false, citedDocIds: [], retrievedDocIds: [], milliseconds: 1, ...overrides };
}

function judged(overrides: Partial<JudgedOutcome>): JudgedOutcome {
  return { expect: 'answer', abstained: false, citedGold: false, right: false, hitAt5: false, milliseconds: 1, ...overrides };
}

describe('judgeOutcome', () => {
  it('counts an answer citing the gold page and naming every key entry as right', () => {
    const result = judgeOutcome(
      sizeQuestion,
      outcome({ answer: 'Call `fs.stat()` [1]; `stats.size` is the size in bytes [2].', citedDocIds: ['fs.md', 'path.md'] }),
    );
    expect(result).toMatchObject({ citedGold: true, right: true });
  });

  it('counts an answer citing the gold page without a key entry as cited but not right', () => {
    const result = judgeOutcome(sizeQuestion, outcome({ answer: 'The file mode is set with `fs.chmod()` [1].', citedDocIds: ['fs.md'] }));
    expect(result).toMatchObject({ citedGold: true, right: false });
  });

  it('counts an answer naming the key but citing another page as neither cited nor right', () => {
    const result = judgeOutcome(sizeQuestion, outcome({ answer: '`fs.stat()` gives the size [1].', citedDocIds: ['stream.md'] }));
    expect(result).toMatchObject({ citedGold: false, right: false });
  });

  it('judges a question without a key right when it cites a gold page (the k8s set)', () => {
    const result = judgeOutcome(
      { ...sizeQuestion, key: undefined, gold: ['concepts/storage/volumes.md'] },
      outcome({ answer: 'A volume is a directory [1].', citedDocIds: ['concepts/storage/volumes.md'] }),
    );
    expect(result).toMatchObject({ citedGold: true, right: true });
  });

  it('never counts an abstention as citing gold', () => {
    const result = judgeOutcome(sizeQuestion, outcome({ abstained: true, citedDocIds: ['fs.md'], answer: 'fs.stat size' }));
    expect(result).toMatchObject({ abstained: true, citedGold: false, right: false });
  });

  it('finds the gold page among the first five retrieved passages only', () => {
    const fifth = judgeOutcome(sizeQuestion, outcome({ retrievedDocIds: ['a', 'b', 'c', 'd', 'fs.md'] }));
    const sixth = judgeOutcome(sizeQuestion, outcome({ retrievedDocIds: ['a', 'b', 'c', 'd', 'e', 'fs.md'] }));
    expect([fifth.hitAt5, sixth.hitAt5]).toEqual([true, false]);
  });
});

describe('a second judgment of the pages (the Kubernetes set)', () => {
  const volumes: DocsQuestion = {
    id: 'rq009-q2',
    question: 'how do i mount a folder from my machine into a pod',
    expect: 'answer',
    gold: ['tasks/configure-pod-container/configure-volume-storage.md'],
    split: 'report',
    judged: { 'concepts/storage/volumes.md': 'answers', 'concepts/storage/projected-volumes.md': 'partly', 'concepts/workloads/pods/_index.md': 'no' },
  };

  it('counts an answer from a page judged to answer as citing an answering page, not the gold one', () => {
    const result = judgeOutcome(volumes, outcome({ answer: 'A hostPath volume mounts a file or directory [1].', citedDocIds: ['concepts/storage/volumes.md'] }));
    expect(result).toMatchObject({ citedGold: false, citedAnswering: true, citedUnjudged: false });
  });

  it('counts a page judged to answer in part, or not, as wrong, and a page never judged as wrong and unjudged', () => {
    const partly = judgeOutcome(volumes, outcome({ citedDocIds: ['concepts/storage/projected-volumes.md'] }));
    const unjudged = judgeOutcome(volumes, outcome({ citedDocIds: ['concepts/storage/ephemeral-volumes.md'] }));
    expect(partly).toMatchObject({ citedAnswering: false, citedUnjudged: false });
    expect(unjudged).toMatchObject({ citedAnswering: false, citedUnjudged: true });
  });

  it('never counts an abstention as citing an answering page, and leaves the figures out for a set without the judgment', () => {
    expect(judgeOutcome(volumes, outcome({ abstained: true, citedDocIds: ['concepts/storage/volumes.md'] }))).toMatchObject({ citedAnswering: false });
    expect(judgeOutcome(sizeQuestion, outcome({ citedDocIds: ['fs.md'] })).citedAnswering).toBeUndefined();
  });

  it('shares the judged figures over the judged answerable questions', () => {
    const gold = judgeOutcome(volumes, outcome({ citedDocIds: ['tasks/configure-pod-container/configure-volume-storage.md'] }));
    const other = judgeOutcome(volumes, outcome({ citedDocIds: ['concepts/storage/volumes.md'], retrievedDocIds: ['a.md', 'b.md', 'c.md', 'd.md', 'concepts/storage/volumes.md'] }));
    const wrong = judgeOutcome(volumes, outcome({ citedDocIds: ['concepts/workloads/pods/_index.md'], retrievedDocIds: ['concepts/storage/projected-volumes.md'] }));
    const unjudged = judgeOutcome(volumes, outcome({ citedDocIds: ['concepts/storage/ephemeral-volumes.md'] }));
    const abstained = judgeOutcome(volumes, outcome({ abstained: true }));

    expect(docsFigures([gold, other, wrong, unjudged, abstained])).toMatchObject({
      cited_gold: 1 / 5,
      confidently_wrong: 3 / 5,
      cited_answering: 2 / 5,
      wrong_judged: 2 / 5,
      cited_unjudged: 1 / 5,
      // Only the answer from the page judged to answer has it among the first 5 retrieved (the others retrieved nothing, or a page judged in part).
      answering_at_5: 1 / 5,
    });
  });
});

describe('where an answerable question went', () => {
  const sizeSection = { docId: 'fs.md', headingPath: ['File system', '`fs.stat(path, callback)`'], text: 'The `stats.size` is the size of the file in bytes.' };

  it('counts a passage as answering only on a gold page naming the key, in its heading path or text', () => {
    expect(answersQuestion(sizeQuestion, sizeSection)).toBe(true);
    expect(answersQuestion(sizeQuestion, { ...sizeSection, docId: 'stream.md' })).toBe(false);
    expect(answersQuestion(sizeQuestion, { ...sizeSection, headingPath: ['File system', '`fs.chmod(path, mode, callback)`'] })).toBe(false);
    expect(answersQuestion({ ...sizeQuestion, key: undefined }, { ...sizeSection, text: 'Unrelated.' })).toBe(true);
  });

  it('tells an answer quoting another section of the gold page from one citing another page', () => {
    const right = judgeOutcome(sizeQuestion, outcome({ answer: '`fs.stat()` gives the `size` [1].', citedDocIds: ['fs.md'], answeringRank: 1 }));
    const otherSection = judgeOutcome(sizeQuestion, outcome({ answer: '`fs.chmod()` sets the mode [1].', citedDocIds: ['fs.md'], answeringRank: 3 }));
    const wrong = judgeOutcome(sizeQuestion, outcome({ answer: '`fs.stat()` gives the `size` [1].', citedDocIds: ['stream.md'], answeringRank: 1 }));
    expect([right.fate, otherSection.fate, wrong.fate]).toEqual(['right', 'other_section', 'confidently_wrong']);
  });

  it('blames an abstention on the stage that lost the answering passage', () => {
    const fateAt = (answeringRank: number | null) => judgeOutcome(sizeQuestion, outcome({ abstained: true, answeringRank })).fate;
    expect([fateAt(1), fateAt(2), fateAt(20), fateAt(null)]).toEqual(['abstained_first', 'abstained_lower', 'abstained_lower', 'abstained_missed']);
  });

  it('gives no fate to an off-topic question, or when the answering passage was not looked for', () => {
    expect(judgeOutcome({ ...sizeQuestion, expect: 'abstain' }, outcome({ abstained: true, answeringRank: null })).fate).toBeUndefined();
    expect(judgeOutcome(sizeQuestion, outcome({ abstained: true })).fate).toBeUndefined();
  });

  it('shares the fates over the answerable questions that have one', () => {
    const shares = fateShares([
      judged({ citedGold: true, right: true, fate: 'right' }),
      judged({ abstained: true, fate: 'abstained_first' }),
      judged({ abstained: true, fate: 'abstained_first' }),
      judged({ abstained: true, fate: 'abstained_missed' }),
      judged({ expect: 'abstain', abstained: true }),
    ]);
    expect(shares).toEqual({ right: 0.25, other_section: 0, confidently_wrong: 0, abstained_first: 0.5, abstained_lower: 0, abstained_missed: 0.25 });
    expect(fateShares([judged({ abstained: true })])).toBeNull();
  });
});

describe('docsFigures', () => {
  it('computes each share over the answerable questions and the off-topic share over the off-topic ones', () => {
    const outcomes = [
      // Answerable: 2 right, 1 cited without the key, 1 confidently wrong, 1 abstained.
      judged({ citedGold: true, right: true, hitAt5: true, milliseconds: 4 }),
      judged({ citedGold: true, right: true, hitAt5: true, milliseconds: 10 }),
      judged({ citedGold: true, hitAt5: true, milliseconds: 2 }),
      judged({ milliseconds: 8 }),
      judged({ abstained: true, hitAt5: true, milliseconds: 6 }),
      // Off-topic: 2 of 3 abstained.
      judged({ expect: 'abstain', abstained: true, milliseconds: 1 }),
      judged({ expect: 'abstain', abstained: true, milliseconds: 3 }),
      judged({ expect: 'abstain', milliseconds: 5 }),
    ];

    expect(docsFigures(outcomes)).toEqual({
      cited_gold: 3 / 5,
      right: 2 / 5,
      confidently_wrong: 1 / 5,
      abstained: 1 / 5,
      off_topic_abstained: 2 / 3,
      hit_at_5: 4 / 5,
      cited_answering: null,
      wrong_judged: null,
      cited_unjudged: null,
      answering_at_5: null,
      // Times sorted: 1 2 3 4 5 6 8 10; middle two 4 and 5.
      p50_ms: 4.5,
      answerable: 5,
      off_topic: 3,
    });
  });

  it('gives null for a share with no question to count', () => {
    const figures = docsFigures([judged({ expect: 'abstain', abstained: true })]);
    expect([figures.cited_gold, figures.right, figures.confidently_wrong, figures.abstained, figures.hit_at_5]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(figures.off_topic_abstained).toBe(1);
  });
});

describe('median', () => {
  it('takes the middle value of an odd count, unsorted input', () => {
    expect(median([9, 1, 5])).toBe(5);
  });

  it('takes the mean of the two middle values of an even count', () => {
    expect(median([7, 1, 3, 100])).toBe(5);
  });

  it('is null for no values', () => {
    expect(median([])).toBeNull();
  });
});
