/**
 * The blocks of a passage's text, as the chunker writes it
 * (server/ingest/pipeline/chunker.ts): blocks separated by blank lines, list items
 * starting with `- `, code fenced with ```` ``` ```` lines (the language is
 * not kept). The extractive answerer quotes prose blocks sentence by
 * sentence (text/sentences.ts) and shows code blocks whole
 * (engine/extractive/code-example.ts).
 */

/** One block of a passage. */
export interface PassageBlock {
  /** `code`: a fenced block; `list-item`: a block starting with `- `; `paragraph`: other text. */
  kind: 'paragraph' | 'list-item' | 'code';
  /**
   * Prose: the block's lines joined with single spaces, a list item without
   * its `- `. Code: the lines between the fences, as written.
   */
  text: string;
}

/**
 * @param passage chunk text: blocks separated by blank lines, code fenced with ```
 * @returns the blocks in order; an unclosed fence makes the rest of the text code
 */
export function splitBlocks(passage: string): PassageBlock[] {
  const blocks: PassageBlock[] = [];
  let inCode = false;
  let current: string[] = [];
  const endProse = (): void => {
    if (current.length > 0) {
      const text = current.join(' ');
      blocks.push(text.startsWith('- ') ? { kind: 'list-item', text: text.slice(2) } : { kind: 'paragraph', text });
    }
    current = [];
  };
  for (const line of passage.split('\n')) {
    if (line.startsWith('```')) {
      if (inCode) {
        blocks.push({ kind: 'code', text: current.join('\n') });
        current = [];
      } else {
        endProse();
      }
      inCode = !inCode;
      continue;
    }
    if (inCode) current.push(line);
    else if (line.trim() === '') endProse();
    else current.push(line);
  }
  if (inCode) blocks.push({ kind: 'code', text: current.join('\n') });
  else endProse();
  return blocks;
}
