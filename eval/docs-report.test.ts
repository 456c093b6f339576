import { describe, expect, it } from 'vitest';
import type { DocsSetRun } from './docs-eval.ts';
import type { DocsFigures } from './docs-figures.ts';
import { docsJson, formatDocsReport } from './docs-report.ts';

function figures(overrides: Partial<DocsFigures>): DocsFigures {
  return {
    cited_gold: 0.5,
    right: 0.25,
    confidently_wrong: 0.2,
    abstained: 0.3,
    off_topic_abstained: 1,
    hit_at_5: 0.75,
    cited_answering: null,
    wrong_judged: null,
    cited_unjudged: null,
    answering_at_5: null,
    p50_ms: 2.345,
    answerable: 4,
    off_topic: 2,
    ...overrides,
  };
}

function run(overrides: Partial<DocsSetRun>): DocsSetRun {
  return {
    mode: 'bm25f',
    fit: figures({}),
    report: figures({}),
    retrievers: { bm25f: { fit: figures({}), report: figures({}) } },
    documents: 64,
    failed: [],
    missingGold: [],
    ingestSeconds: 2.5,
    seconds: 4.25,
    records: [],
    fates: { fit: null, report: null },
    ...overrides,
  };
}

describe('formatDocsReport', () => {
  it('shows the report half beside the fit half and judges the targets on the report half', () => {
    const text = formatDocsReport({ node: run({ report: figures({ right: 0.85, confidently_wrong: 0.1 }) }), k8s: undefined, k8sWording: 'q' });

    expect(text).toContain('| Node.js docs | right | 0.8500 | 0.2500 | - | >= 0.80 (met) |');
    expect(text).toContain('| Node.js docs | confidently_wrong | 0.1000 | 0.2000 | - | <= 0.10 (met) |');
    expect(text).toContain('| Node.js docs | p50_ms | 2.3 ms | 2.3 ms | - | - |');
    expect(text).toContain('Node.js docs: 64 documents; report half 4 answerable + 2 off-topic');
    expect(text).not.toContain('Kubernetes');
  });

  it('shows each held-out set that ran under its own name, without targets, and keys its JSON by that name', () => {
    const report = { node: undefined, k8s: undefined, k8sWording: 'q' as const, heldOut: { piscina: run({ documents: 9, report: figures({ right: 0 }) }) } };
    const text = formatDocsReport(report);

    expect(text).toContain('| piscina docs (held out) | right | 0.0000 | 0.2500 | - | - |');
    expect(text).toContain('piscina docs (held out, nothing fitted on it): 9 documents');
    expect(text).not.toContain('pino');
    expect(Object.keys(docsJson(report))).toEqual(['piscina']);
  });

  it('marks a figure above an at-most target as not met and shows the anchors and the ingest target of the k8s set', () => {
    const text = formatDocsReport({
      node: undefined,
      k8s: run({ report: figures({ confidently_wrong: 0.36 }), ingestSeconds: 12.3, failed: [{ docId: '_index.md', reason: 'no text' }] }),
      k8sWording: 'source',
    });

    expect(text).toContain('| Kubernetes docs | confidently_wrong | 0.3600 | 0.2000 | - | <= 0.10 (not met) |');
    expect(text).toContain('| Kubernetes docs | hit_at_5 | 0.7500 | 0.7500 | BM25 + BGE + LLM rewriting 0.41 (q2 0.40); plain BM25 about 0.31 | - |');
    expect(text).toContain("source questions' wording (diagnostic)");
    expect(text).toContain('1 files failed to ingest (e.g. _index.md: no text)');
    expect(text).toContain('ingest 12.3 s, total 4.3 s; ingest target <= 10 s (not met)');
  });

  it('shows where the answerable questions went, report half first, and leaves out a half with none', () => {
    const fates = { right: 0.5, other_section: 0.125, confidently_wrong: 0, abstained_first: 0.25, abstained_lower: 0.125, abstained_missed: 0 };
    const text = formatDocsReport({ node: run({ fates: { fit: null, report: fates } }), k8s: undefined, k8sWording: 'q' });

    expect(text).toContain('| set | half | right | answered, other section | confidently wrong | abstained, answering passage first |');
    expect(text).toContain('| Node.js docs | report | 0.5000 | 0.1250 | 0.0000 | 0.2500 | 0.1250 | 0.0000 |');
    expect(text).not.toContain('| Node.js docs | fit |');
  });

  it('is empty when no documentation set ran', () => {
    expect(formatDocsReport({ node: undefined, k8s: undefined, k8sWording: 'q' })).toBe('');
  });
});

describe('docsJson', () => {
  it('gives each set its halves, the retrieval ablation, counts and times, and the k8s set the wording asked', () => {
    const json = docsJson({ node: undefined, k8s: run({ ingestSeconds: 9.876 }), k8sWording: 'q' });

    expect(json).toEqual({
      k8s: {
        ask: 'q',
        mode: 'bm25f',
        report: figures({}),
        fit: figures({}),
        retrievers: { bm25f: { fit: figures({}), report: figures({}) } },
        fates: { fit: null, report: null },
        documents: 64,
        failed_to_ingest: 0,
        ingest_seconds: 9.88,
        seconds: 4.25,
      },
    });
  });
});
