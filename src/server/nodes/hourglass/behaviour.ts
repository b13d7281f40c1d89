import moment from "moment";
import { HOURGLASS_DIR, hourglassNode } from "./definition";
import { defineBehaviour } from "../types";
import type { Message, NodeStatus } from "../../runtime/types";
import { cloneMessage } from "../sequence-support";

/** setTimeout's limit (2^31 - 1 ms): a later alarm is rescheduled a day at a time, as the contrib does. */
const MAX_TIMEOUT_MS = 0x7fffffff;
const DAY_MS = 86_400_000;
/** How often a running stopwatch's status is refreshed (the contrib's minute). */
const STATUS_EVERY_MS = 60_000;

interface State {
  started: boolean;
  startedAt: number;
  elapsed: number;
}

interface Alarm {
  duration: number;
  recurrent: boolean;
  period: number;
  msg: Message;
  timer?: NodeJS.Timeout;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * node-red-contrib-hourglass 1.5.1 (hourglass.js): the same commands, output, alarms and status;
 * its state file in the user directory is `hourglass/<id>` among the organization's files.
 */
export const hourglassBehaviour = defineBehaviour(hourglassNode, (ctx, c) => {
  const files = ctx.services.files;
  const path = `${HOURGLASS_DIR}/${c.persistId || ctx.node.id}`;
  const state: State = { started: false, startedAt: 0, elapsed: 0 };
  let alarms: Alarm[] = [];
  let statusTimer: NodeJS.Timeout | undefined;
  let closed = false;
  /** Writes one after another, the last state last. */
  let writing: Promise<void> = Promise.resolve();

  const duration = () => {
    const d = moment.duration(state.elapsed + (state.started ? Date.now() - state.startedAt : 0));
    return c.humanizeLocale ? d.locale(c.humanizeLocale) : d;
  };

  const updateStatus = () => {
    if (closed) return;
    const text = duration().humanize();
    if (state.started) {
      const elapsed = duration().asMilliseconds();
      const overdue = alarms.filter((a) => a.duration <= elapsed).length;
      const fill: NodeStatus["fill"] = overdue === 0 ? "green" : overdue === alarms.length ? "red" : "yellow";
      ctx.status({ fill, shape: "dot", text });
      statusTimer ??= setInterval(updateStatus, STATUS_EVERY_MS);
    } else {
      ctx.status({ fill: "grey", shape: "ring", text });
      clearInterval(statusTimer);
      statusTimer = undefined;
    }
  };

  const persist = () => {
    const content = Buffer.from(JSON.stringify({ started: state.started, startedAt: state.startedAt, elapsed: state.elapsed }));
    if (files) {
      writing = writing
        .then(() => files.write(ctx.organizationId, path, content, { append: false }))
        .catch((err: unknown) => ctx.log.warn(`the stopwatch's state could not be kept in ${path}: ${err instanceof Error ? err.message : String(err)}`));
    }
    updateStatus();
  };

  /** The contrib's enrich: started and elapsed on the message. */
  const enrich = (msg: Message) => {
    const d = duration();
    msg.started = state.started;
    msg.elapsed = {
      human: d.humanize(),
      millis: d.asMilliseconds(),
      time: { days: Math.floor(d.asDays()), hours: d.hours(), minutes: d.minutes(), seconds: d.seconds(), milliseconds: d.milliseconds() },
    };
  };

  const ring = (alarm: Alarm) => {
    if (closed) return;
    const msg = cloneMessage(alarm.msg);
    enrich(msg);
    ctx.send(msg);
    if (alarm.recurrent) {
      schedule(alarm, alarm.period);
      ctx.status({ fill: "blue", shape: "dot", text: `Alarm ${moment.duration(alarm.period).humanize(true)}` });
    }
  };

  function schedule(alarm: Alarm, delay: number) {
    clearTimeout(alarm.timer);
    alarm.timer = undefined;
    if (delay > MAX_TIMEOUT_MS) alarm.timer = setTimeout(() => schedule(alarm, delay - DAY_MS), DAY_MS);
    else if (delay > 0) alarm.timer = setTimeout(() => ring(alarm), delay);
  }

  /** The time until an alarm rings from `elapsed`: a recurrent one that is due rings at its next period. */
  const timeLeft = (alarm: { duration: number; recurrent: boolean; period: number }, elapsed: number) => {
    let left = alarm.duration - elapsed;
    if (left <= 0 && alarm.recurrent) left = alarm.duration + alarm.period * Math.floor(1 + (elapsed - alarm.duration) / alarm.period) - elapsed;
    return left;
  };

  return {
    async start() {
      // The state kept by the last run (a restart, a redeploy, another instance).
      const stored = files ? await files.read(ctx.organizationId, path).catch(() => null) : null;
      if (stored) {
        try {
          const data = JSON.parse(stored.toString("utf8")) as Partial<State>;
          state.started = data.started === true;
          state.startedAt = num(data.startedAt);
          state.elapsed = num(data.elapsed);
        } catch {
          // As the contrib: an unreadable state is a stopwatch at zero.
        }
      }
      updateStatus();
    },
    input(msg, send, done) {
      let command = msg.command;
      if (command === "toggle") command = state.started ? "stop" : "start";
      let sendStatus = Boolean(msg.status);
      switch (command) {
        case "start":
        case "resume":
          if (!state.started) {
            state.started = true;
            state.startedAt = Date.now();
            persist();
            const elapsed = duration().asMilliseconds();
            for (const alarm of alarms) schedule(alarm, timeLeft(alarm, elapsed));
          }
          break;
        case "pause":
        case "stop":
          if (state.started) {
            state.elapsed += Date.now() - state.startedAt;
            state.started = false;
            state.startedAt = 0;
            persist();
            for (const alarm of alarms) clearTimeout(alarm.timer);
          }
          break;
        case "reset":
          state.elapsed = 0;
          if (state.started) state.startedAt = Date.now();
          persist();
          if (state.started) for (const alarm of alarms) schedule(alarm, alarm.duration - duration().asMilliseconds());
          break;
        case "status":
          sendStatus = true;
          break;
        case "alarm": {
          const ms = moment.duration(msg.payload as moment.DurationInputArg1).asMilliseconds();
          if (alarms.some((a) => a.duration === ms)) break;
          const period = "period" in msg ? moment.duration(msg.period as moment.DurationInputArg1).asMilliseconds() : ms;
          const alarm: Alarm = { duration: ms, recurrent: Boolean(msg.recurrent), period, msg: cloneMessage(msg) };
          const left = timeLeft(alarm, duration().asMilliseconds());
          schedule(alarm, state.started && left > 0 ? left : 0);
          alarms.push(alarm);
          if (left > 0 && state.started) ctx.status({ fill: "blue", shape: "dot", text: `Alarm ${moment.duration(left).humanize(true)}` });
          break;
        }
        case "remove-alarms":
          for (const alarm of alarms) clearTimeout(alarm.timer);
          alarms = [];
          break;
        default:
          // The contrib passes a string to done: the error's message is the text itself.
          done(`Unknown command: ${String(msg.command)}`);
          return;
      }
      if (sendStatus) {
        enrich(msg);
        send(msg);
      }
      // The contrib never calls done for a command: no complete node hears of it; the step ends.
      done(undefined, { noComplete: true });
    },
    async close() {
      closed = true;
      clearInterval(statusTimer);
      for (const alarm of alarms) clearTimeout(alarm.timer);
      alarms = [];
      await writing;
    },
  };
});
