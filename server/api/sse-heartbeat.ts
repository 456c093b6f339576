/**
 * The idle heartbeat of an event stream (docs/specification.md "Stream frames": a
 * comment every 15 s while idle), apart from the writing it keeps alive.
 */

/** What {@link startHeartbeat} asks of the stream it keeps alive. */
export interface HeartbeatHooks {
  /** `performance.now()` of the stream's last write. */
  lastWriteAt(): number;
  /** False once the stream finished or its client has gone: the heartbeat stops. */
  active(): boolean;
  /** True while a write waits for the connection to drain: no beat is added then. */
  busy(): boolean;
  /** Writes one heartbeat comment. */
  beat(): void;
}

/**
 * Calls `beat` whenever the stream has been idle (nothing written) for
 * `intervalMilliseconds`, checking again at the moment the interval since
 * the last write would end, so a busy stream gets no beat at all. The
 * timer never keeps the process alive (`unref`).
 *
 * @param intervalMilliseconds idle time before a beat, > 0
 * @returns a function that stops the heartbeat (idempotent)
 */
export function startHeartbeat(intervalMilliseconds: number, hooks: HeartbeatHooks): () => void {
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      timer = undefined;
      if (!hooks.active()) return;
      const idle = performance.now() - hooks.lastWriteAt();
      if (idle >= intervalMilliseconds && !hooks.busy()) {
        hooks.beat();
        schedule(intervalMilliseconds);
      } else {
        schedule(Math.max(1, intervalMilliseconds - idle));
      }
    }, delay);
    timer.unref();
  };
  schedule(intervalMilliseconds);
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}
