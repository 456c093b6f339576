/**
 * English stop words removed before indexing and querying.
 *
 * The first group is Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`
 * (33 words), the list behind the published BEIR BM25 baselines. The second
 * group adds the function words of plain-language questions ("how do I ...",
 * "what does it ...") so that they neither cost postings reads nor count as
 * evidence; content words are deliberately absent.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  // Lucene English stop words
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these',
  'they', 'this', 'to', 'was', 'will', 'with',
  // question and function words
  'how', 'what', 'which', 'who', 'whom', 'whose', 'why', 'when', 'where',
  'do', 'does', 'did', 'doing', 'done', 'can', 'could', 'should', 'would', 'may', 'might', 'must', 'shall',
  'i', 'me', 'my', 'we', 'us', 'our', 'you', 'your', 'he', 'she', 'him', 'her', 'his', 'its', 'them',
  'am', 'been', 'being', 'were', 'has', 'have', 'had', 'having',
  'so', 'than', 'too', 'very', 'just', 'about', 'also', 'any', 'some', 'from', 'up', 'out',
  'those', 'here', 'there', 's', 't', 'get', 'got', 'way', 'please', 'tell', 'know', 'want',
]);
