import type { ByteBudget } from "../../runtime/work-limits";

/**
 * What one connection holds (an answer being collected, text before its delimiter) in the
 * organization's budget for bytes being downloaded (`WorkLimits.responseBudget`, shared with http
 * request's responses). Taken at once or not at all, never waited for: two connections each
 * waiting for the other's bytes would wait for ever.
 */
export class BudgetHold {
  private granted = 0;

  constructor(private readonly budget: ByteBudget | undefined) {}

  /** The budget's size, for an error that names it. */
  get max(): number | undefined {
    return this.budget?.max;
  }

  /** Holds `bytes` in all: gives back the difference, or takes more if there is room now. False: no room (nothing changed). */
  hold(bytes: number): boolean {
    const budget = this.budget;
    if (!budget || bytes === this.granted) return true;
    if (bytes < this.granted) {
      budget.give(this.granted - bytes);
      this.granted = bytes;
      return true;
    }
    let now = false;
    const cancel = budget.reserve(bytes - this.granted, () => {
      now = true;
    });
    if (!now) {
      cancel();
      return false;
    }
    this.granted = bytes;
    return true;
  }

  release(): void {
    this.hold(0);
  }
}
