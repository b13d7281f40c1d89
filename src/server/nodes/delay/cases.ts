import type { DiffCase } from "../../../test/node-red-diff/types";

/**
 * The delay node against Node-RED 4.1 (cases after test/nodes/core/function/89-delay_spec.js, with
 * shorter times). Arrivals are compared per collector in order; timing only decides what arrives.
 */
const delay = (props: Record<string, unknown>, wires: string[][] = [["out"]]) => ({
  id: "delay",
  type: "delay",
  pauseType: "delay",
  timeout: "100",
  timeoutUnits: "milliseconds",
  rate: "1",
  nbRateUnits: "1",
  rateUnits: "second",
  randomFirst: "1",
  randomLast: "5",
  randomUnits: "seconds",
  drop: false,
  allowrate: false,
  outputs: wires.length,
  ...props,
  wires,
});
const msgs = (...payloads: Array<Record<string, unknown>>) => payloads.map((msg) => ({ msg }));

export const cases: DiffCase[] = [
  {
    name: "fixed delay: every message, in order",
    nodes: [delay({})],
    send: msgs({ payload: 1 }, { payload: 2, topic: "t" }, { payload: 3 }),
    expect: 3,
  },
  {
    name: "fixed delay in seconds (0.1 s)",
    nodes: [delay({ timeout: "0.1", timeoutUnits: "seconds" })],
    send: msgs({ payload: "a" }),
    expect: 1,
  },
  {
    name: "fixed delay: msg.flush releases everything held; the flush message itself is not sent",
    nodes: [delay({ timeout: "400" })],
    send: msgs({ payload: 1, topic: "foo" }, { payload: 1, topic: "bar" }, { payload: 2, topic: "bar" }, { flush: true }),
    expect: 3,
    settleMs: 100,
  },
  {
    name: "fixed delay: msg.flush = 2 releases two, the rest wait",
    nodes: [delay({ timeout: "300" })],
    send: msgs({ payload: 1, topic: "foo" }, { payload: 2, topic: "bar" }, { payload: 3, topic: "boo" }, { flush: 2 }),
    expect: 3,
  },
  {
    name: "fixed delay: a flush carrying a payload is sent too",
    nodes: [delay({ timeout: "300" })],
    send: msgs({ payload: 1 }, { payload: 2, flush: true }),
    expect: 2,
  },
  {
    name: "fixed delay: msg.reset clears everything held, nothing is sent",
    nodes: [delay({ timeout: "200" })],
    send: msgs({ payload: 1, topic: "foo" }, { payload: 1, topic: "bar" }, { reset: true }),
    settleMs: 400,
  },
  {
    name: "variable delay: msg.delay overrides, the default applies without it",
    nodes: [delay({ pauseType: "delayv", timeout: "150" })],
    send: msgs({ payload: 1, delay: 350 }, { payload: 2, delay: 20 }, { payload: 3 }),
    expect: 3,
  },
  {
    name: "variable delay: zero, negative and numeric-string msg.delay",
    nodes: [delay({ pauseType: "delayv", timeout: "300" })],
    send: msgs({ payload: "late", delay: "120" }, { payload: "zero", delay: 0 }, { payload: "negative", delay: -50 }),
    expect: 3,
  },
  {
    name: "random delay between two values delivers every message",
    nodes: [delay({ pauseType: "random", randomFirst: "10", randomLast: "60", randomUnits: "milliseconds" })],
    send: msgs({ payload: 1 }),
    expect: 1,
  },
  {
    name: "rate limit: queues the excess and releases it in order",
    nodes: [delay({ pauseType: "rate", rate: "10", nbRateUnits: "1", rateUnits: "second" })],
    send: msgs({ payload: 1 }, { payload: 2 }, { payload: 3 }, { payload: 4 }),
    expect: 4,
  },
  {
    name: "rate limit with drop: intermediate messages are dropped",
    nodes: [delay({ pauseType: "rate", rate: "1", nbRateUnits: "1", rateUnits: "second", drop: true })],
    send: msgs({ payload: 1 }, { payload: 2 }, { payload: 3 }),
    settleMs: 300,
  },
  {
    name: "rate limit with drop to a second output",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "second", drop: true }, [["out"], ["dropped"]])],
    send: msgs({ payload: 1 }, { payload: 2 }, { payload: 3 }),
    expect: 3,
  },
  {
    name: "rate limit: msg.flush releases the queue at once",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "second" })],
    send: msgs({ payload: 1, topic: "foo" }, { payload: 2, topic: "bar" }, { payload: 3, topic: "bar" }, { flush: true }),
    expect: 3,
  },
  {
    name: "rate limit: msg.toFront jumps the queue, msg.flush = 1 sends the front",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "second" })],
    send: [
      ...msgs({ payload: 1, topic: "aoo" }, { payload: 1, topic: "boo" }, { payload: 1, topic: "coo", toFront: true }, { payload: 1, topic: "doo", toFront: true, flush: 1 }),
      ...msgs({ payload: 1, topic: "eoo", toFront: true }, { flush: 1 }),
      { msg: { flush: 4 }, delayMs: 150 },
    ],
    expect: 5,
  },
  {
    name: "rate limit: msg.reset drops the queue",
    nodes: [delay({ pauseType: "rate", rate: "2", rateUnits: "second" })],
    send: msgs({ payload: 1, topic: "foo" }, { payload: 1, topic: "bar" }, { payload: 2, topic: "bar" }, { reset: true }),
    settleMs: 700,
  },
  {
    name: "rate limit: a message with reset to an empty queue sends nothing",
    nodes: [delay({ pauseType: "rate", rate: "2", rateUnits: "second" })],
    send: msgs({ payload: 1, topic: "foo", reset: true }),
    settleMs: 300,
  },
  {
    name: "rate limit: flush 2 with reset, then flush 1 with reset",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "second" })],
    send: [
      { msg: { payload: 1, topic: "foo" } },
      { msg: { payload: 2, topic: "far" }, delayMs: 10 },
      { msg: { payload: 3, topic: "boo" }, delayMs: 10 },
      { msg: { payload: 4, topic: "bar" }, delayMs: 10 },
      { msg: { flush: 2, reset: true }, delayMs: 150 },
      { msg: { payload: 5, topic: "fob" }, delayMs: 100 },
      { msg: { flush: 1, reset: true }, delayMs: 100 },
    ],
    settleMs: 300,
  },
  {
    name: "rate limit: a full flush with reset that carries a payload",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "second" })],
    send: [
      { msg: { payload: 1, topic: "foo" } },
      { msg: { payload: 2, topic: "far" }, delayMs: 10 },
      { msg: { payload: 4, topic: "bar" }, delayMs: 10 },
      { msg: { payload: 5, topic: "last", flush: true, reset: true }, delayMs: 150 },
      { msg: { payload: 6, topic: "fob" }, delayMs: 100 },
      { msg: { flush: 1, reset: true }, delayMs: 100 },
    ],
    settleMs: 300,
  },
  {
    name: "rate limit: msg.rate overrides the rate when allowed",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "minute", allowrate: true })],
    send: msgs({ payload: 1, rate: 50 }, { payload: 2 }, { payload: 3 }),
    expect: 3,
  },
  {
    name: "rate limit: msg.rate is ignored unless allowed",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "minute" })],
    send: msgs({ payload: 1, rate: 50 }, { payload: 2 }),
    settleMs: 400,
  },
  {
    name: "rate limit with drop: msg.rate sets the spacing",
    nodes: [delay({ pauseType: "rate", rate: "1", rateUnits: "minute", drop: true, allowrate: true })],
    send: [{ msg: { payload: 1, rate: 100 } }, { msg: { payload: 2 } }, { msg: { payload: 3 }, delayMs: 150 }],
    settleMs: 300,
  },
  {
    name: "per topic, each in turn: only the newest of each topic, topics in order, no topic is _none_",
    nodes: [delay({ pauseType: "queue", rate: "10", rateUnits: "second" })],
    send: msgs({ payload: 1 }, { payload: 1, topic: "A" }, { payload: 1, topic: "B" }, { payload: 2, topic: "A" }, { payload: 3, topic: "A" }, { payload: 2 }, { payload: 4, topic: "A" }),
    expect: 3,
  },
  {
    name: "per topic, all topics each period",
    nodes: [delay({ pauseType: "timed", rate: "10", rateUnits: "second" })],
    send: msgs({ payload: 1 }, { payload: 1, topic: "A" }, { payload: 1, topic: "B" }, { payload: 2, topic: "A" }, { payload: 2 }, { payload: 4, topic: "A" }),
    expect: 3,
  },
  {
    name: "per topic with a second output: replaced messages leave on it",
    nodes: [delay({ pauseType: "queue", rate: "5", rateUnits: "second" }, [["out"], ["replaced"]])],
    send: msgs({ payload: 1, topic: "A" }, { payload: 2, topic: "A" }, { payload: 3, topic: "B" }, { payload: 4, topic: "A" }),
    expect: 4,
  },
  {
    name: "per topic: msg.flush releases every topic at once",
    nodes: [delay({ pauseType: "queue", rate: "1", rateUnits: "second" })],
    send: msgs({ payload: 1, topic: "A" }, { payload: 2, topic: "B" }, { payload: 3, topic: "C", flush: true }),
    expect: 3,
  },
  {
    name: "per topic: msg.reset clears the queue",
    nodes: [delay({ pauseType: "timed", rate: "2", rateUnits: "second" })],
    send: msgs({ payload: 1, topic: "A" }, { payload: 2, topic: "B" }, { reset: true }),
    settleMs: 700,
  },
];
