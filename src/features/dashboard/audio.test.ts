import { afterEach, describe, expect, it, vi } from "vitest";
import { applyWidgetMessage, initialWidgetState } from "./widget-state";
import { speak } from "./widgets/audio";

class FakeUtterance {
  rate = 1;
  pitch = 1;
  volume = 1;
  lang = "";
  voice: { name: string; lang: string; localService: boolean; voiceURI: string; default: boolean } | null = null;
  onstart: (() => void) | null = null;
  onend: (() => void) | null = null;
  onerror: ((e: { error: string }) => void) | null = null;
  onpause = null;
  onresume = null;
  constructor(readonly text: string) {}
}

function fakeSpeech(voices = [
  { name: "Alice", lang: "en-GB", localService: true, voiceURI: "alice", default: false },
  { name: "Bert", lang: "de-DE", localService: true, voiceURI: "bert", default: true },
]) {
  const spoken: FakeUtterance[] = [];
  const synth = { speaking: false, paused: false, getVoices: () => voices, speak: (u: FakeUtterance) => spoken.push(u), cancel: vi.fn(), pause: vi.fn(), resume: vi.fn() };
  vi.stubGlobal("window", { speechSynthesis: synth, SpeechSynthesisUtterance: FakeUtterance });
  return { spoken, synth };
}

describe("ui-audio in the browser", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("keeps a string payload as the player's source and counts every message (playback asks the player)", () => {
    const widget = { type: "ui-audio" as const, props: { mode: "src" } };
    let s = initialWidgetState({ ...widget, state: null });
    s = applyWidgetMessage(widget, s, { payload: "https://example.com/a.wav" });
    s = applyWidgetMessage(widget, s, { playback: "play" });
    expect(s.msg).toEqual({ payload: "https://example.com/a.wav" });
    expect(s.event).toEqual({ n: 2, msg: { playback: "play" } });
  });

  it("speaks Dashboard 2.0's options: voice by name or index, the node's voice, lang, clamped rate, pitch and volume; reports start and end", () => {
    const { spoken } = fakeSpeech();
    const events: unknown[] = [];
    const report = (type: string, u: Record<string, unknown> | null, error?: string) => events.push([type, u?.text, error]);
    speak({ payload: { text: "Hello", voice: "1", rate: 50, pitch: -3, volume: 88 } }, "", report);
    expect(spoken[0]).toMatchObject({ text: "Hello", rate: 10, pitch: 0, volume: 0.88, voice: { name: "Bert" } });
    speak({ payload: "Door open" }, "Alice", report);
    expect(spoken[1]).toMatchObject({ text: "Door open", voice: { name: "Alice" } });
    speak({ payload: { text: "Hallo", lang: "de-DE" } }, "", report);
    expect(spoken[2]!.voice?.name).toBe("Bert");
    spoken[1]!.onstart?.();
    spoken[1]!.onend?.();
    spoken[1]!.onerror?.({ error: "interrupted" });
    expect(events).toEqual([
      ["tts-start", "Door open", undefined],
      ["tts-end", "Door open", undefined],
      ["tts-error", "Door open", "interrupted"],
    ]);
  });

  it("waits a moment for a browser that lists its voices late (voiceschanged), then speaks", () => {
    vi.useFakeTimers();
    const listeners: Array<() => void> = [];
    let voices: Array<{ name: string; lang: string; localService: boolean; voiceURI: string; default: boolean }> = [];
    const spoken: FakeUtterance[] = [];
    const synth = { speaking: false, paused: false, getVoices: () => voices, speak: (u: FakeUtterance) => spoken.push(u), cancel() {}, addEventListener: (_: string, f: () => void) => listeners.push(f), removeEventListener() {} };
    vi.stubGlobal("window", { speechSynthesis: synth, SpeechSynthesisUtterance: FakeUtterance });
    const events: unknown[] = [];
    speak({ payload: "late" }, "", (type) => events.push(type));
    expect(spoken).toHaveLength(0);
    voices = [{ name: "V", lang: "en", localService: true, voiceURI: "v", default: true }];
    listeners[0]!();
    expect(spoken.map((u) => u.text)).toEqual(["late"]);
    // None at all within a second: said, once.
    voices = [];
    speak({ payload: "never" }, "", (type) => events.push(type));
    vi.advanceTimersByTime(1000);
    expect(events).toEqual(["tts-error"]);
    vi.useRealTimers();
  });

  it("says why it cannot speak: no voices, no text, already speaking without interrupt; playback pauses, resumes and stops", () => {
    const events: unknown[] = [];
    const report = (type: string, _u: unknown, error?: string) => events.push([type, error]);
    fakeSpeech([]);
    speak({ payload: "x" }, "", report);
    const { synth, spoken } = fakeSpeech();
    speak({ payload: "   " }, "", report);
    synth.speaking = true;
    speak({ payload: { text: "later", queue: false, interrupt: false } }, "", report);
    expect(spoken).toHaveLength(0);
    speak({ payload: "now" }, "", report);
    expect(synth.cancel).toHaveBeenCalledTimes(1);
    expect(spoken.map((u) => u.text)).toEqual(["now"]);
    speak({ playback: "pause" }, "", report);
    synth.paused = true;
    speak({ playback: "resume" }, "", report);
    speak({ playback: "stop" }, "", report);
    expect([synth.pause.mock.calls.length, synth.resume.mock.calls.length, synth.cancel.mock.calls.length]).toEqual([1, 1, 2]);
    expect(events).toEqual([
      ["tts-error", "Browser does not support Text-to-Speech"],
      ["tts-error", "No text to speak"],
      ["tts-skip", "Already speaking"],
    ]);
  });
});
