/**
 * Runs `work` once the browser has painted the current frame (a frame, then a task): what the first paint need not
 * wait for. Answers the cancel, for an effect's cleanup.
 */
export function afterNextPaint(work: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => (timer = setTimeout(work)));
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}
