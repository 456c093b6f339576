import type { StreamFrame } from '../../protocol/query-protocol.ts';

/**
 * The text of server-sent events (HTML Standard, "Server-sent events",
 * section 9.2): one frame as an event, and the comment that keeps an idle
 * stream open.
 */

/** A comment line (HTML SSE: a line starting with `:` is ignored by clients) that keeps proxies from timing out. */
export const HEARTBEAT_COMMENT = ': ping\n\n';

/**
 * Encodes one frame as an SSE event: `event: <type>\ndata: <json>\n\n`
 * (HTML Standard 9.2.5/9.2.6). The JSON carries `type` equal to the event
 * name. `JSON.stringify` escapes CR and LF inside strings, so the data is
 * always one line and no field text can end the event or start another
 * field; U+2028/U+2029, which it leaves raw, are not SSE line breaks.
 *
 * @returns the event text, to be written as UTF-8
 */
export function encodeFrame(frame: StreamFrame): string {
  return `event: ${frame.type}\ndata: ${JSON.stringify(frame)}\n\n`;
}
