/**
 * Runs tasks one at a time, each once the one before it has settled, in the order they were given:
 * how the switch node (as Node-RED's `processMessageQueue`) and the change node keep their messages
 * in order while a rule is evaluated asynchronously. A task that fails rejects its own promise and
 * does not stop the next.
 */
export function inOrder(): <T>(task: () => T | Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}
