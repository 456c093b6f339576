import type { RequestHandler } from 'express';
import { problem } from './problem.ts';

/**
 * Cheap checks on a request body that run before anything reads or
 * validates it, so no body can cost more than its size allows: a body
 * announced larger than the limit is refused before a byte of it is read,
 * and a parsed JSON body nested deeper than any real request is refused
 * before validation walks it (zod and `JSON.stringify` recurse once per
 * level, and about 4,000 levels fit in 8 KB).
 */

/** Deepest nesting of arrays and objects a JSON body may have; the query body needs 3. */
export const MAX_JSON_DEPTH = 32;

/** Largest JSON request body of the widget API and of the console's requests other than documents, in bytes (16 KiB). */
export const MAX_JSON_BODY_BYTES = 16 * 1024;

/**
 * Refuses with 413 `payload_too_large` a request whose `Content-Length`
 * announces more than `limitBytes`, before its body is read (body-parser
 * would read and discard the whole body first); the problem handler closes
 * the connection after the refusal, so the unread body is never waited for.
 * A body without `Content-Length` (chunked) is left to the body parser's own limit.
 *
 * @param limitBytes largest body accepted, bytes
 * @param limitText the limit as the refusal states it, e.g. "16 KiB"
 * @param advice what to do instead, added to the refusal's sentence ("send the files in several uploads")
 */
export function announcedBodyLimit(limitBytes: number, limitText: string, advice?: string): RequestHandler {
  return (request, _response, next) => {
    // A body already received in full (or read by an earlier, larger-limit
    // parser) costs nothing more to refuse; the body parser's limit covers it.
    if (request.complete) {
      next();
      return;
    }
    const announced = request.get('content-length');
    if (announced !== undefined && /^\d+$/.test(announced.trim()) && Number(announced) > limitBytes) {
      throw problem(413, 'payload_too_large', `The request body of ${announced.trim()} bytes is larger than the ${limitText} limit${advice === undefined ? '' : `: ${advice}`}`);
    }
    next();
  };
}

/**
 * The nesting depth of a JSON value: 0 for a scalar, 1 for `[]` or `{}`, and
 * one more for each level of arrays and objects inside. Iterative, and it
 * stops as soon as the depth passes `ceiling`, so no value can exhaust the
 * stack or take longer than its size.
 *
 * @param value a value produced by `JSON.parse`
 * @param ceiling depth past which counting stops
 * @returns the depth, or `ceiling + 1` when it is deeper than `ceiling`
 */
export function jsonDepth(value: unknown, ceiling: number = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    const level = depth + 1;
    if (level > ceiling) return ceiling + 1;
    if (level > deepest) deepest = level;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth: level });
    }
  }
  return deepest;
}

/**
 * Refuses with 400 `invalid_request` a parsed JSON body nested deeper than
 * {@link MAX_JSON_DEPTH}; runs right after the JSON body parser.
 */
export const jsonDepthLimit: RequestHandler = (request, _response, next) => {
  if (jsonDepth(request.body) > MAX_JSON_DEPTH) {
    throw problem(400, 'invalid_request', `The request body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  next();
};
