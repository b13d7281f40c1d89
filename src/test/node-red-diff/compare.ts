import type { Arrival, DiffCase } from "./types";

/**
 * Normalized arrivals in the order they are compared: per collector (stably, each collector's in
 * its order) when the case says `orderPerCollector`, else as they came.
 */
export function inComparedOrder(c: DiffCase, normalized: Arrival[]): Arrival[] {
  if (!c.orderPerCollector) return normalized;
  const collectors = [...new Set(normalized.map((a) => a.collector))].sort();
  return collectors.flatMap((collector) => normalized.filter((a) => a.collector === collector));
}
