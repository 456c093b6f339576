import type { Insights } from '../../protocol/console-protocol.ts';
import type { FeedbackRecord, Reach, Store } from '../store/store.ts';

/** Feedback records read a page at a time while looking for problem reports. */
const PAGE_SIZE = 100;
/** Pages read at most: the period's reports beyond them are not listed. */
const MAX_PAGES = 20;

/**
 * Visitors' problem reports of a period, newest first, each with the
 * passage it reports as its `source_span` located it (docs/console.md "Insights"): the
 * passage's headings, text and page link while its document is unchanged
 * since the report (the same passage, by id, in the version reported), only the document's id
 * and title once it has been re-indexed, and nothing of a document removed
 * or outside the reader's reach (`FeedbackRecord` titles only what the
 * reader can read now).
 *
 * @param reach the reader's reach: whose documents may be named and quoted
 * @param since the period's first instant, epoch ms
 * @param limit most reports returned
 */
export async function problemReports(
  store: Pick<Store, 'listFeedback' | 'passagesById'>,
  reach: Reach,
  since: number,
  limit: number,
): Promise<Insights['problem_reports']> {
  const reports: FeedbackRecord[] = [];
  let before: FeedbackRecord | undefined;
  for (let page = 0; page < MAX_PAGES && reports.length < limit; page += 1) {
    const records = await store.listFeedback(reach, { limit: PAGE_SIZE, ...(before ? { before: { createdAt: before.createdAt, id: before.id } } : {}) });
    const inPeriod = records.filter((record) => record.createdAt >= since);
    reports.push(...inPeriod.filter((record) => record.kind === 'problem'));
    if (records.length < PAGE_SIZE || inPeriod.length < records.length) break;
    before = records.at(-1);
  }
  const listed = reports.slice(0, limit);
  const named = listed.flatMap((report) => report.passages.filter((passage) => passage.title !== undefined));
  const stored = new Map(
    (await store.passagesById(reach.kbId, named.map((passage) => passage.chunkId))).map((passage) => [passage.chunkId, passage]),
  );
  return listed.map((report) => {
    const reported = report.passages[0];
    const passage = reported?.title === undefined ? undefined : stored.get(reported.chunkId);
    return {
      question: report.question,
      reported_at: new Date(report.createdAt).toISOString(),
      reason: report.reason ?? 'other',
      ...(report.comment === undefined ? {} : { comment: report.comment }),
      ...(reported?.title === undefined
        ? {}
        : {
            passage: {
              doc_id: reported.docId,
              title: reported.title,
              ...(passage && passage.docId === reported.docId && passage.contentHash.startsWith(reported.version)
                ? {
                    headings: passage.headingPath,
                    text: passage.text,
                    ...(passage.url === undefined ? {} : { url: passage.anchor === undefined ? passage.url : `${passage.url}#${passage.anchor}` }),
                  }
                : {}),
            },
          }),
    };
  });
}
