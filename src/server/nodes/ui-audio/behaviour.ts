import { uiAudioNode } from "./definition";
import { defineBehaviour } from "../types";
import { viewOf, widgetBehaviour, withTopic } from "../dashboard-support";
import type { Message } from "../../runtime/types";

const ON_OFF = ["autoplay", "loop", "muted"] as const;

/**
 * Dashboard 2.0's ui-audio: in player mode a string payload is the source and is kept (a playback
 * or other message is shown, not kept); in speech mode nothing is kept. `ui_update`'s autoplay,
 * loop and muted must be "on" or "off" (else a node error, as Dashboard 2.0's). What the page does
 * (`widget-action`: play, pause, ended, tts-*) leaves as the last message with `_event`.
 */
export const uiAudioBehaviour = defineBehaviour(uiAudioNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    checkUpdate(update) {
      const out = { ...update };
      for (const key of ON_OFF) {
        if (key in out && out[key] !== "on" && out[key] !== "off") {
          ctx.log.error(`Property msg.ui_update.${key} should be "on" or "off"`);
          delete out[key];
        }
      }
      return out;
    },
    onMessage(msg, state) {
      const show = viewOf(msg);
      if (c.mode === "src" && typeof msg.payload === "string") return { state: { ...state, msg: show }, show };
      return { state, show };
    },
    onViewer(input, state) {
      if (input.event !== "action") return null;
      const e = input.msg._event;
      const event = typeof e === "string" ? e.slice(0, 32) : e && typeof e === "object" && !Array.isArray(e) ? viewOf(e as Record<string, unknown>) : undefined;
      if (event === undefined) return null;
      // Player: the kept message (its source); speech: the page's last message, as Dashboard 2.0's client sends it.
      const last = c.mode === "src" ? (state.msg ?? {}) : viewOf({ payload: input.msg.payload, ...(input.msg.topic !== undefined ? { topic: input.msg.topic } : {}) });
      const msg: Message = { ...last, _msgid: ctx.newMessageId(), _event: event };
      withTopic(ctx, c, msg);
      if (typeof input.msg._error === "string") msg._error = input.msg._error.slice(0, 1000);
      if (input.client.socketId) msg._client = input.client;
      return { send: msg };
    },
  }),
);
