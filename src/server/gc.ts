import v8 from "node:v8";
import vm from "node:vm";

/**
 * A full garbage collection now, without starting the process with --expose-gc: the flag is set
 * just long enough to get `gc` into one fresh context, so contexts made later (Next's edge sandbox)
 * get none. The server runs it once when it listens; tests before a measurement.
 */
export function collectGarbage(): void {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  v8.setFlagsFromString("--no-expose-gc");
  gc();
}
