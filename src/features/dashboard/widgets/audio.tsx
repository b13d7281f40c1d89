"use client";

import { useCallback, useEffect, useRef, useSyncExternalStore } from "react";
import type { DashboardWidgetView } from "@/shared/dashboard";
import { useDashboard } from "../dashboard-context";
import { effectiveProps, initialWidgetState } from "../widget-state";
import { str, type WidgetProps } from "./widget";

const on = (props: Record<string, unknown>, key: string) => str(props, key, "off") === "on";

/**
 * ui-audio as a player (Dashboard 2.0's UIAudio.vue, mode "src"): the browser's audio controls
 * for the source (a string payload, else the node's `src`); `msg.playback` plays, pauses or stops
 * (back to the start); play, pause and ended go to the flow as `_event`.
 */
export function AudioWidget({ props, state, send, interactive }: WidgetProps) {
  const audio = useRef<HTMLAudioElement>(null);
  const payload = state.msg?.payload;
  const src = (typeof payload === "string" && payload) || str(props, "src");
  const n = state.event?.n ?? 0;
  // Only messages that arrive while the player is shown: a player shown again (ui-control) replays nothing.
  const seen = useRef(n);
  useEffect(() => {
    const el = audio.current;
    const playback = state.event?.msg.playback;
    if (n <= seen.current) return;
    seen.current = n;
    if (!el || typeof playback !== "string") return;
    if (playback === "play" || playback === "resume") el.play().catch(() => undefined);
    else if (playback === "pause") el.pause();
    else if (playback === "stop") {
      el.pause();
      el.currentTime = 0;
    }
    // One run per message that arrived.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [n]);
  const report = (e: { type: string }) => {
    if (interactive) send("action", { _event: e.type });
  };
  return (
    <audio
      ref={audio}
      className="db-audio"
      controls
      autoPlay={on(props, "autoplay")}
      loop={on(props, "loop")}
      muted={on(props, "muted")}
      src={src || undefined}
      aria-label={str(props, "name") || str(props, "label") || "Audio"}
      onPlay={report}
      onPause={report}
      onEnded={report}
    />
  );
}

type Report = (type: string, utterance: Record<string, unknown> | null, error?: string) => void;

function num(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" ? parseFloat(v) : NaN;
  return Number.isFinite(n) ? n : null;
}
const clamp = (n: number, lo: number, hi: number) => Math.min(Math.max(n, lo), hi);

/** Dashboard 2.0's text to speech for one message (UIAudio.vue's onMsgInput, mode "tts"). */
export function speak(msg: Record<string, unknown>, configuredVoice: string, report: Report, retried = false) {
  const w = window as Window & { SpeechSynthesisUtterance?: typeof SpeechSynthesisUtterance };
  const synth = "speechSynthesis" in window ? window.speechSynthesis : undefined;
  if (typeof msg.playback === "string") {
    if (!synth) return;
    if ((msg.playback === "play" || msg.playback === "resume") && synth.paused) synth.resume();
    else if (msg.playback === "stop" && (synth.speaking || synth.paused)) synth.cancel();
    else if (msg.playback === "pause" && synth.speaking && !synth.paused) synth.pause();
    return;
  }
  if (!("payload" in msg)) return;
  const voices = synth?.getVoices() ?? [];
  // A browser lists its voices a moment after the page asks first (Chromium): wait for them once, a second at most.
  if (synth && voices.length === 0 && typeof synth.addEventListener === "function" && !retried) {
    const again = () => {
      clearTimeout(timer);
      synth.removeEventListener("voiceschanged", again);
      speak(msg, configuredVoice, report, true);
    };
    const timer = setTimeout(again, 1000);
    synth.addEventListener("voiceschanged", again);
    return;
  }
  if (!synth || !w.SpeechSynthesisUtterance || voices.length === 0) return report("tts-error", null, "Browser does not support Text-to-Speech");
  const options: Record<string, unknown> = msg.payload && typeof msg.payload === "object" ? { ...(msg.payload as Record<string, unknown>) } : { text: typeof msg.payload === "string" ? msg.payload : String(msg.payload) };
  const text = typeof options.text === "string" ? options.text : options.text === undefined ? "" : String(options.text);
  if (!text.trim()) return report("tts-error", null, "No text to speak");
  const queue = typeof options.queue === "boolean" ? options.queue : false;
  const interrupt = typeof options.interrupt === "boolean" ? options.interrupt : true;
  if (synth.speaking) {
    if (!queue && !interrupt) return report("tts-skip", null, "Already speaking");
    if (interrupt) synth.cancel();
  }
  const u = new w.SpeechSynthesisUtterance(text);
  const rate = num(options.rate);
  if (rate !== null) u.rate = clamp(rate || 1, 0.1, 10);
  const pitch = num(options.pitch);
  if (pitch !== null) u.pitch = clamp(pitch || 1, 0, 2);
  if (typeof options.lang === "string" && options.lang) u.lang = options.lang;
  const volume = num(options.volume);
  if (volume !== null) u.volume = clamp(volume / 100 || 1, 0, 1);
  const index = typeof options.voice === "number" || (typeof options.voice === "string" && /^\d+$/.test(options.voice)) ? Number(options.voice) : null;
  const byName = (name: string) => voices.find((v) => v.name === name || v.voiceURI === name);
  const chosen =
    (index !== null && index >= 0 && index < voices.length ? voices[index] : undefined) ??
    (typeof options.voice === "string" && options.voice && index === null ? byName(options.voice) : undefined) ??
    (configuredVoice ? byName(configuredVoice) : undefined) ??
    (u.lang ? voices.find((v) => v.lang === u.lang) : undefined) ??
    voices.find((v) => v.default) ??
    voices[0];
  if (chosen) u.voice = chosen;
  const spoken = {
    text: u.text,
    volume: u.volume,
    rate: u.rate,
    pitch: u.pitch,
    lang: u.lang,
    voice: u.voice ? { name: u.voice.name, lang: u.voice.lang, localService: u.voice.localService, voiceURI: u.voice.voiceURI } : { name: "Unknown", lang: null, localService: null, voiceURI: null },
  };
  u.onstart = () => report("tts-start", spoken);
  u.onpause = () => report("tts-pause", spoken);
  u.onresume = () => report("tts-resume", spoken);
  u.onend = () => report("tts-end", spoken);
  u.onerror = (e) => report("tts-error", spoken, (e as SpeechSynthesisErrorEvent).error || "unknown");
  synth.speak(u);
}

/** One ui-audio in speech mode (no group): speaks each message on whichever page of its dashboard is open. */
function Speaker({ widget }: { widget: DashboardWidgetView }) {
  const { store, interactive, sendInput } = useDashboard();
  const subscribe = useCallback((cb: () => void) => store.subscribeWidget(widget.id, cb), [store, widget.id]);
  const state = useSyncExternalStore(subscribe, () => store.getState(widget.id), () => store.getState(widget.id)) ?? initialWidgetState(widget);
  const n = state.event?.n ?? 0;
  // Only messages that arrive from now on (a page opened later does not speak what was said before).
  const seen = useRef(n);
  useEffect(() => {
    const msg = state.event?.msg;
    if (!msg || n <= seen.current) return;
    seen.current = n;
    const props = effectiveProps(widget, state);
    speak(msg, str(props, "voice"), (type, utterance, error) => {
      if (!interactive) return;
      sendInput(widget.id, "action", { ...("payload" in msg ? { payload: msg.payload } : {}), _event: { type, utterance, ...(error ? { error } : {}) }, ...(error ? { _error: error } : {}) });
    });
    // One run per message that arrived.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [n]);
  return null;
}

/** The dashboard's speaking ui-audio nodes (they have no place on the page). */
export function Speakers({ widgets }: { widgets: DashboardWidgetView[] }) {
  const speaking = widgets.some((w) => w.type === "ui-audio" && w.props.mode === "tts");
  // Asking once starts the browser loading its voices, so they are there when the first text comes.
  useEffect(() => {
    if (speaking && "speechSynthesis" in window) window.speechSynthesis.getVoices();
  }, [speaking]);
  return (
    <>
      {widgets
        .filter((w) => w.type === "ui-audio" && w.props.mode === "tts")
        .map((w) => (
          <Speaker key={w.id} widget={w} />
        ))}
    </>
  );
}
