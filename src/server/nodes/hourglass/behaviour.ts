import moment from "moment";
import { HOURGLASS_DIR, MAX_ALARMS, MIN_ALARM_PERIOD_MS, hourglassNode } from "./definition";
import { defineBehaviour } from "../types";
import { DONE_LATER, type Message, type NodeStatus } from "../../runtime/types";
import { cloneMessage } from "../sequence-support";

/** setTimeout's limit (2^31 - 1 ms): a later alarm is rescheduled a day at a time, as the contrib does. */
const MAX_TIMEOUT_MS = 0x7fffffff;
const DAY_MS = 86_400_000;
/** How often a running stopwatch's status is refreshed (the contrib's minute). */
const STATUS_EVERY_MS = 60_000;
/** An alarm's "Alarm in …" status is shown at most this often. */
const ALARM_STATUS_EVERY_MS = 1_000;

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
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * node-red-contrib-hourglass 1.5.1 (hourglass.js): the same commands, output, alarms and status;
 * its state file in the user directory is `hourglass/<id>` among the organization's files, read
 * before the flow starts (the contrib reads it in its constructor) and written before a command's
 * message goes on (its writeFileSync).
 */
export const hourglassBehaviour = defineBehaviour(hourglassNode, async (ctx, c) => {
  const files = ctx.services.files;
  const path = `${HOURGLASS_DIR}/${c.persistId || ctx.node.id}`;
  const state: State = { started: false, startedAt: 0, elapsed: 0 };
  let alarms: Alarm[] = [];
  let statusTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let alarmStatusAt = 0;

  /** The kept state, read before any message can arrive; false when it could not be read (then nothing is written over it). */
  const load = async (): Promise<boolean> => {
    if (!files) return true;
    let stored: Buffer | null;
    try {
      stored = await files.read(ctx.organizationId, path);
    } catch (err) {
      // Reported: the engine shows it as the node's status.
      ctx.log.error(new Error(`the stopwatch's state (${path}) could not be read: ${errorText(err)}`));
      return false;
    }
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
    return true;
  };
  let loaded = await load();

  /** Writes: one at a time, and only the newest state waits behind the one under way. */
  let writing: Promise<void> | undefined;
  let queued: { content: Buffer; waiters: Array<{ ok: () => void; fail: (err: unknown) => void }> } | undefined;
  const write = (content: Buffer): Promise<void> =>
    new Promise((ok, fail) => {
      if (!files) return ok();
      if (queued) {
        queued.content = content;
        queued.waiters.push({ ok, fail });
        return;
      }
      queued = { content, waiters: [{ ok, fail }] };
      const drain = async (): Promise<void> => {
        while (queued) {
          const batch = queued;
          queued = undefined;
          try {
            await files.write(ctx.organizationId, path, batch.content, { append: false });
            for (const w of batch.waiters) w.ok();
          } catch (err) {
            for (const w of batch.waiters) w.fail(err);
          }
        }
        writing = undefined;
      };
      writing ??= drain();
    });

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

  const alarmStatus = (ms: number) => {
    const now = Date.now();
    if (now - alarmStatusAt < ALARM_STATUS_EVERY_MS) return;
    alarmStatusAt = now;
    ctx.status({ fill: "blue", shape: "dot", text: `Alarm ${moment.duration(ms).humanize(true)}` });
  };

  /** The contrib's persist: the state written, then the status. */
  const persist = async () => {
    updateStatus();
    await write(Buffer.from(JSON.stringify({ started: state.started, startedAt: state.startedAt, elapsed: state.elapsed })));
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
    // A busy flow skips a ring (as inject skips a repeat); a recurrent alarm rings again next period.
    if (!ctx.busy()) {
      const msg = cloneMessage(alarm.msg);
      enrich(msg);
      ctx.send(msg);
    }
    if (alarm.recurrent) {
      schedule(alarm, alarm.period);
      alarmStatus(alarm.period);
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

  /** A duration Moment.js reads, in ms; throws for one it cannot (the contrib keeps such an alarm, which never rings). */
  const durationOf = (value: unknown, what: string) => {
    const ms = moment.duration(value as moment.DurationInputArg1).asMilliseconds();
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`${what} ${JSON.stringify(value) ?? String(value)} is not a duration (e.g. "00:30:00", "PT1H" or a number of ms)`);
    return ms;
  };

  return {
    start() {
      if (loaded) updateStatus();
    },
    // Asynchronous: a command's state is written before its message goes on (backpressure, and a
    // failed write is the node's error, as the contrib's writeFileSync throws).
    async input(msg, send, done): Promise<typeof DONE_LATER> {
      if (!loaded) loaded = await load();
      if (!loaded) throw new Error(`the stopwatch's state (${path}) could not be read: nothing was changed`);
      let command = msg.command;
      if (command === "toggle") command = state.started ? "stop" : "start";
      let sendStatus = Boolean(msg.status);
      let failed: string | Error | undefined;
      let changed = false;
      switch (command) {
        case "start":
        case "resume":
          if (!state.started) {
            state.started = true;
            state.startedAt = Date.now();
            changed = true;
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
            changed = true;
            for (const alarm of alarms) clearTimeout(alarm.timer);
          }
          break;
        case "reset":
          state.elapsed = 0;
          if (state.started) state.startedAt = Date.now();
          changed = true;
          if (state.started) for (const alarm of alarms) schedule(alarm, alarm.duration - duration().asMilliseconds());
          break;
        case "status":
          sendStatus = true;
          break;
        case "alarm": {
          try {
            const ms = durationOf(msg.payload, "the alarm's msg.payload");
            if (alarms.some((a) => a.duration === ms)) break;
            const recurrent = Boolean(msg.recurrent);
            const period = "period" in msg ? durationOf(msg.period, "msg.period") : ms;
            if (recurrent && period < MIN_ALARM_PERIOD_MS) throw new Error(`a recurrent alarm's period is at least ${MIN_ALARM_PERIOD_MS} ms (${period} ms given)`);
            if (alarms.length >= MAX_ALARMS) throw new Error(`a stopwatch holds at most ${MAX_ALARMS} alarms`);
            const alarm: Alarm = { duration: ms, recurrent, period, msg: cloneMessage(msg) };
            const left = timeLeft(alarm, duration().asMilliseconds());
            schedule(alarm, state.started && left > 0 ? left : 0);
            alarms.push(alarm);
            if (left > 0 && state.started) alarmStatus(left);
          } catch (err) {
            failed = err as Error;
          }
          break;
        }
        case "remove-alarms":
          for (const alarm of alarms) clearTimeout(alarm.timer);
          alarms = [];
          break;
        default:
          // The contrib passes a string to done: the error's message is the text itself.
          failed = `Unknown command: ${String(msg.command)}`;
          break;
      }
      if (changed) await persist();
      // As the contrib: the extended mode sends the time after the command, even an unknown one.
      if (sendStatus) {
        // The time it tells is a kept one: a write under way (another command's) ends first, as the
        // contrib's writeFileSync has ended before any later message is read.
        await writing?.catch(() => undefined);
        enrich(msg);
        send(msg);
      }
      if (failed !== undefined) done(failed);
      // The contrib never calls done for a command: no complete node hears of it; the step ends.
      else done(undefined, { noComplete: true });
      return DONE_LATER;
    },
    async close() {
      closed = true;
      clearInterval(statusTimer);
      for (const alarm of alarms) clearTimeout(alarm.timer);
      alarms = [];
      ctx.status(null);
      await writing?.catch(() => undefined);
    },
  };
});
