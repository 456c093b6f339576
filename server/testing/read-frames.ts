import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { StreamFrame } from '../../protocol/query-protocol.ts';

/** A parsed SSE event: its name and its JSON data. */
export interface ReceivedFrame {
  event: string | undefined;
  frame: StreamFrame;
}

/**
 * Reads a whole SSE response with eventsource-parser (the parser the widget
 * uses) into frames, in order.
 */
export async function readFrames(response: Response): Promise<ReceivedFrame[]> {
  const frames: ReceivedFrame[] = [];
  const events = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of events) {
    frames.push({ event: message.event, frame: JSON.parse(message.data) as StreamFrame });
  }
  return frames;
}
